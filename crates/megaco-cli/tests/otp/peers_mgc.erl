%% An Erlang/OTP megaco MGC for the CLI's scenario tests: OTP's stack, with
%% a user module that answers like a controller keeping contexts: Add on
%% context $ gets a new context id, a $ level of a termination id a number,
%% Modify, Subtract, Notify and ServiceChange well-formed replies (a
%% ServiceChangeVersion above VERSION answered with VERSION). Prints "port N" when ready and "request COMMANDS" per request;
%% stops when standard input closes.
%%
%% erl -noshell -pa DIR -s peers_mgc start PORT ENCODING VERSION TRANSPORT
%%   PORT: UDP: 0 for any; TCP: the port to listen on
%%   ENCODING: pretty | compact
-module(peers_mgc).

-export([start/1]).
-export([handle_connect/2, handle_disconnect/3, handle_syntax_error/3,
         handle_message_error/3, handle_trans_request/3,
         handle_trans_long_request/3, handle_trans_reply/4,
         handle_trans_ack/4, handle_unexpected_trans/3,
         handle_trans_request_abort/4, handle_segment_reply/5]).

-define(CHOOSE, 4294967294).

start(Args) ->
    spawn(fun() -> run(Args) end),
    ok.

run([PortA, EncA, VsnA, TransportA]) ->
    Port = list_to_integer(atom_to_list(PortA)),
    Vsn = list_to_integer(atom_to_list(VsnA)),
    EncMod = case EncA of
                 pretty -> megaco_pretty_text_encoder;
                 compact -> megaco_compact_text_encoder
             end,
    persistent_term:put(peers_mgc_ids, atomics:new(2, [])),
    persistent_term:put(peers_mgc_version, Vsn),
    ok = megaco:start(),
    Mid = {deviceName, "otpmgc"},
    ok = megaco:start_user(Mid, [{user_mod, ?MODULE},
                                 {send_mod, case TransportA of
                                                udp -> megaco_udp;
                                                tcp -> megaco_tcp
                                            end},
                                 {encoding_mod, EncMod},
                                 {encoding_config, []},
                                 {protocol_version, Vsn}]),
    RH = megaco:user_info(Mid, receive_handle),
    Bound = listen(TransportA, Port, RH),
    io:format("port ~w~n", [Bound]),
    wait_eof().

listen(udp, Port, RH) ->
    {ok, Sup} = megaco_udp:start_transport(),
    {ok, SH, _Ctrl} = megaco_udp:open(Sup, [{port, Port}, {receive_handle, RH}]),
    {ok, Bound} = inet:port(megaco_udp:socket(SH)),
    Bound;
listen(tcp, Port, RH) ->
    {ok, Sup} = megaco_tcp:start_transport(),
    ok = megaco_tcp:listen(Sup, [{port, Port}, {receive_handle, RH}]),
    Port.

wait_eof() ->
    case io:get_line('') of
        eof -> erlang:halt(0);
        {error, _} -> erlang:halt(0);
        _ -> wait_eof()
    end.

next(N) ->
    atomics:add_get(persistent_term:get(peers_mgc_ids), N, 1).

handle_connect(_CH, _PV) -> ok.
handle_disconnect(_CH, _PV, _Reason) -> ok.
handle_syntax_error(_RH, _PV, _ED) -> reply.
handle_message_error(_CH, _PV, _ED) -> ok.
handle_trans_request(_CH, _PV, Actions) ->
    Names = [element(1, element(2, C)) || {'ActionRequest', _, _, _, Cmds} <- Actions, C <- Cmds],
    io:format("request ~w~n", [Names]),
    {discard_ack, [action_reply(A) || A <- Actions]}.
handle_trans_long_request(_CH, _PV, _Data) -> {discard_ack, []}.
handle_trans_reply(_CH, _PV, _Reply, _Data) -> ok.
handle_trans_ack(_CH, _PV, _Status, _Data) -> ok.
handle_unexpected_trans(_CH, _PV, _Trans) -> ok.
handle_trans_request_abort(_CH, _PV, _TransNo, _Pid) -> ok.
handle_segment_reply(_CH, _PV, _TransNo, _SN, _SC) -> ok.

action_reply({'ActionRequest', Cid0, _, _, Cmds}) ->
    Cid = case Cid0 of
              ?CHOOSE -> next(1);
              _ -> Cid0
          end,
    {'ActionReply', Cid, asn1_NOVALUE, asn1_NOVALUE, [command_reply(C) || C <- Cmds]}.

command_reply({'CommandRequest', {addReq, {'AmmRequest', Tids, _}}, _, _}) ->
    {addReply, {'AmmsReply', [choose(T) || T <- Tids], asn1_NOVALUE}};
command_reply({'CommandRequest', {modReq, {'AmmRequest', Tids, _}}, _, _}) ->
    {modReply, {'AmmsReply', Tids, asn1_NOVALUE}};
command_reply({'CommandRequest', {moveReq, {'AmmRequest', Tids, _}}, _, _}) ->
    {moveReply, {'AmmsReply', Tids, asn1_NOVALUE}};
command_reply({'CommandRequest', {subtractReq, {'SubtractRequest', Tids, _}}, _, _}) ->
    {subtractReply, {'AmmsReply', Tids, asn1_NOVALUE}};
command_reply({'CommandRequest', {notifyReq, {'NotifyRequest', Tids, _, _}}, _, _}) ->
    {notifyReply, {'NotifyReply', Tids, asn1_NOVALUE}};
command_reply({'CommandRequest', {serviceChangeReq, {'ServiceChangeRequest', Tids, Parms}}, _, _}) ->
    %% H.248.1 11.3: a version offered above ours is answered with ours.
    Ours = persistent_term:get(peers_mgc_version),
    Version = case element(4, Parms) of
                  V when is_integer(V), V > Ours -> Ours;
                  _ -> asn1_NOVALUE
              end,
    Parm = {'ServiceChangeResParm', {deviceName, "otpmgc"}, asn1_NOVALUE,
            Version, asn1_NOVALUE, asn1_NOVALUE},
    {serviceChangeReply, {'ServiceChangeReply', Tids, {serviceChangeResParms, Parm}}}.

%% A `$` level of a termination id becomes a number.
choose({megaco_term_id, true, Levels}) ->
    N = integer_to_list(next(2)),
    {megaco_term_id, false, [case L of "$" -> N; _ -> L end || L <- Levels]};
choose(T) ->
    T.
