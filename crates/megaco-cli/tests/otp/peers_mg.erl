%% Erlang/OTP megaco MGs for the CLI's tests: one per TRANSPORT:ENCODING:PORT
%% given, all in this node at once, each registering (ServiceChange Restart
%% on ROOT) with the MGC at 127.0.0.1:PORT and then sending a Notify, with
%% megaco:call/3, in the version the MGC's reply negotiated. Prints "TAG
%% servicechange RESULT" and "TAG notify RESULT" for each, then "done".
%%
%% erl -noshell -pa DIR -s peers_mg start VERSION udp:pretty:2944 tcp:ber:2945 ...
%%   ENCODING: pretty | compact | ber
-module(peers_mg).

-export([start/1]).
-export([handle_connect/2, handle_disconnect/3, handle_syntax_error/3,
         handle_message_error/3, handle_trans_request/3,
         handle_trans_long_request/3, handle_trans_reply/4,
         handle_trans_ack/4, handle_unexpected_trans/3,
         handle_trans_request_abort/4, handle_segment_reply/5]).

start(Args) ->
    spawn(fun() -> run(Args) end),
    ok.

run([VsnA | Specs]) ->
    Vsn = list_to_integer(atom_to_list(VsnA)),
    ok = megaco:start(),
    {ok, UdpSup} = megaco_udp:start_transport(),
    {ok, TcpSup} = megaco_tcp:start_transport(),
    Sups = #{udp => UdpSup, tcp => TcpSup},
    Self = self(),
    Pids = [spawn_link(fun() -> Self ! {done, self(), register(Vsn, Sups, S)} end)
            || S <- Specs],
    [receive {done, P, _} -> ok end || P <- Pids],
    io:format("done~n"),
    erlang:halt(0).

register(Vsn, Sups, SpecA) ->
    [T, E, P] = string:split(atom_to_list(SpecA), ":", all),
    Transport = list_to_atom(T),
    Port = list_to_integer(P),
    Tag = T ++ "-" ++ E,
    EncMod = case E of
                 "pretty" -> megaco_pretty_text_encoder;
                 "compact" -> megaco_compact_text_encoder;
                 "ber" -> megaco_ber_encoder
             end,
    Mid = {deviceName, "otpmg-" ++ Tag},
    ok = megaco:start_user(Mid, [{user_mod, ?MODULE},
                                 {send_mod, case Transport of
                                                udp -> megaco_udp;
                                                tcp -> megaco_tcp
                                            end},
                                 {encoding_mod, EncMod},
                                 {encoding_config, []},
                                 {protocol_version, Vsn},
                                 {request_timer, 2000},
                                 {long_request_timer, 5000}]),
    RH = megaco:user_info(Mid, receive_handle),
    {SH, Ctrl} = open(Transport, maps:get(Transport, Sups), Port, RH),
    {ok, CH} = megaco:connect(RH, preliminary_mid, SH, Ctrl),
    V = integer_to_list(Vsn),
    SC = actions(Vsn, "MEGACO/" ++ V ++ " [127.0.0.1]:2944 Transaction = 1 { Context = - { "
                 "ServiceChange = ROOT { Services { Method = Restart, "
                 "Reason = \"901 mg col boot\" } } } }"),
    Registered = megaco:call(CH, SC, []),
    io:format("~s servicechange ~w~n", [Tag, Registered]),
    N = actions(Vsn, "MEGACO/" ++ V ++ " [127.0.0.1]:2944 Transaction = 2 { Context = - { "
                "Notify = 11111111/00000000/00000001 { ObservedEvents = 2 { al/of } } } }"),
    %% The reply told OTP the MGC's mid: the connection has a new handle.
    [CH2] = megaco:user_info(Mid, connections),
    %% H.248.1 11.3: the version the MGC answered is the one used from now
    %% on (OTP leaves that to the user).
    case negotiated(Registered) of
        undefined -> ok;
        Negotiated -> ok = megaco:update_conn_info(CH2, protocol_version, Negotiated)
    end,
    io:format("~s notify ~w~n", [Tag, megaco:call(CH2, N, [])]),
    ok.

%% The ServiceChangeVersion of a registration's reply, if any.
negotiated({_PV, {ok, [{'ActionReply', _, _, _, [{serviceChangeReply,
        {'ServiceChangeReply', _, {serviceChangeResParms, Parm}}}]}]}}) ->
    case element(4, Parm) of
        V when is_integer(V) -> V;
        _ -> undefined
    end;
negotiated(_) ->
    undefined.

open(udp, Sup, Port, RH) ->
    {ok, SH0, Ctrl} = megaco_udp:open(Sup, [{port, 0}, {receive_handle, RH}]),
    {megaco_udp:create_send_handle(megaco_udp:socket(SH0), {127, 0, 0, 1}, Port), Ctrl};
open(tcp, Sup, Port, RH) ->
    {ok, SH, Ctrl} = megaco_tcp:connect(Sup, [{host, "127.0.0.1"}, {port, Port},
                                              {receive_handle, RH}]),
    {SH, Ctrl}.

actions(Vsn, Text) ->
    {ok, {'MegacoMessage', _, {'Message', _, _, {transactions, [{transactionRequest, T}]}}}} =
        megaco_pretty_text_encoder:decode_message([], Vsn, list_to_binary(Text)),
    {'TransactionRequest', _, Actions} = T,
    Actions.

handle_connect(_CH, _PV) -> ok.
handle_disconnect(_CH, _PV, _Reason) -> ok.
handle_syntax_error(_RH, _PV, _ED) -> reply.
handle_message_error(_CH, _PV, _ED) -> ok.
handle_trans_request(_CH, _PV, _Actions) ->
    {discard_ack, {'ErrorDescriptor', 501, "Not Implemented"}}.
handle_trans_long_request(_CH, _PV, _Data) -> {discard_ack, []}.
handle_trans_reply(_CH, _PV, _Reply, _Data) -> ok.
handle_trans_ack(_CH, _PV, _Status, _Data) -> ok.
handle_unexpected_trans(_CH, _PV, _Trans) -> ok.
handle_trans_request_abort(_CH, _PV, _TransNo, _Pid) -> ok.
handle_segment_reply(_CH, _PV, _TransNo, _SN, _SC) -> ok.
