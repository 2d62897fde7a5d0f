%% A minimal Erlang/OTP megaco MGC for the interop tests: listens on UDP or
%% TCP (TPKT),
%% answers ServiceChange with a ServiceChangeReply (address port 2944) and
%% Notify with a NotifyReply, anything else with error 501.
%%
%% erl -noshell -pa DIR -s otp_mgc start PORT ENCODING VERSION [TRANSPORT]
%%   PORT: port to listen on (UDP: 0 for any); printed as "port N" when ready
%%   ENCODING: pretty | compact | ber
%%   VERSION: protocol version of the replies (1..3)
%%   TRANSPORT: udp (default) | tcp
%%   MODE: plain (default); slow: take 1.5 s over each request (OTP sends
%%     pendings meanwhile, its pending timer set to 200 ms); ack: ask for an
%%     ack of each reply (ImmAckRequired) and print "ack STATUS" when the
%%     ack arrives; segmented: send each reply of more than one action
%%     as segments, one action reply each (v3, segment_send infinity,
%%     max_pdu_size 128), and print "segment reply SN SC" for each
%%     SegmentReply received; segmented_ack: both segmented and ack, the
%%     transport serializing the processing of received messages;
%%     negotiate: negotiate the version as
%%     H.248.1 11.3 asks and OTP leaves to its user: a ServiceChange on
%%     ROOT offering version V (ServiceChangeVersion, or the message's own)
%%     sets the connection to min(V, VERSION) with
%%     megaco:update_conn_info/3, and the reply carries that version; it
%%     prints "negotiated V" and, for each request, "version PV" (the
%%     version of the message that carried it)
-module(otp_mgc).

-export([start/1]).
-export([handle_connect/2, handle_connect/3,
         handle_disconnect/3,
         handle_syntax_error/3, handle_syntax_error/4,
         handle_message_error/3, handle_message_error/4,
         handle_trans_request/3, handle_trans_request/4,
         handle_trans_long_request/3, handle_trans_long_request/4,
         handle_trans_reply/4, handle_trans_reply/5,
         handle_trans_ack/4, handle_trans_ack/5,
         handle_unexpected_trans/3, handle_unexpected_trans/4,
         handle_trans_request_abort/4, handle_trans_request_abort/5,
         handle_segment_reply/5, handle_segment_reply/6]).

%% The transport supervisor is linked to the process that starts it, so
%% the set-up runs in a process that lives until stdin closes (the process
%% running -s functions exits when they return).
start(Args) ->
    spawn(fun() -> run(Args) end),
    ok.

run([PortA, EncA, VsnA]) ->
    run([PortA, EncA, VsnA, udp]);
run([PortA, EncA, VsnA, Transport]) ->
    run([PortA, EncA, VsnA, Transport, plain]);
run([PortA, EncA, VsnA, Transport, Mode]) ->
    persistent_term:put(otp_mgc_mode, Mode),
    PendingTimer = case Mode of
                       slow -> 200;
                       _ -> 30000
                   end,
    Port = list_to_integer(atom_to_list(PortA)),
    Vsn = list_to_integer(atom_to_list(VsnA)),
    persistent_term:put(otp_mgc_version, Vsn),
    EncMod = case EncA of
                 pretty -> megaco_pretty_text_encoder;
                 compact -> megaco_compact_text_encoder;
                 ber -> megaco_ber_encoder
             end,
    ok = megaco:start(),
    Mid = {ip4Address, {'IP4Address', [127, 0, 0, 1], 2944}},
    ok = megaco:start_user(Mid, [{user_mod, ?MODULE},
                                 {send_mod, send_mod(Transport)},
                                 {encoding_mod, EncMod},
                                 {encoding_config, []},
                                 {protocol_version, Vsn},
                                 {pending_timer, PendingTimer}]
                                ++ segment_options(Mode)),
    RH = megaco:user_info(Mid, receive_handle),
    Bound = listen(Transport, Port, RH),
    io:format("port ~w~n", [Bound]),
    %% Stop when the test closes our stdin.
    wait_eof().

segment_options(segmented) ->
    [{segment_send, infinity}, {max_pdu_size, 128}, {segment_reply_ind, true}];
segment_options(segmented_ack) ->
    segment_options(segmented);
segment_options(_) ->
    [].

send_mod(udp) -> megaco_udp;
send_mod(tcp) -> megaco_tcp.

listen(udp, Port, RH) ->
    {ok, Sup} = megaco_udp:start_transport(),
    {ok, SendHandle, _Ctrl} = megaco_udp:open(Sup, [{port, Port}, {receive_handle, RH}]
                                              ++ serialize()),
    {ok, Bound} = inet:port(megaco_udp:socket(SendHandle)),
    Bound;
listen(tcp, Port, RH) ->
    {ok, Sup} = megaco_tcp:start_transport(),
    ok = megaco_tcp:listen(Sup, [{port, Port}, {receive_handle, RH}] ++ serialize()),
    Port.

%% OTP processes each received message in a process of its own unless the
%% transport serializes them; SegmentReplies and the TransactionResponseAck
%% of one reply, arriving together, then race over the reply's record (the
%% ack sees segments "not acked" that were). segmented_ack serializes, to
%% see what arrived rather than that race.
serialize() ->
    case persistent_term:get(otp_mgc_mode) of
        segmented_ack -> [{serialize, true}];
        _ -> []
    end.

wait_eof() ->
    case io:get_line('') of
        eof -> erlang:halt(0);
        {error, _} -> erlang:halt(0);
        _ -> wait_eof()
    end.

handle_connect(_CH, _PV) -> ok.
handle_connect(_CH, _PV, _Extra) -> ok.
handle_disconnect(_CH, _PV, _Reason) -> ok.
handle_syntax_error(_RH, _PV, _ED) -> reply.
handle_syntax_error(_RH, _PV, _ED, _Extra) -> reply.
handle_message_error(_CH, _PV, _ED) -> ok.
handle_message_error(_CH, _PV, _ED, _Extra) -> ok.

handle_trans_request(CH, PV, Actions) ->
    io:format("request ~w~n", [length(Actions)]),
    Mode = persistent_term:get(otp_mgc_mode),
    Mode =:= negotiate andalso io:format("version ~w~n", [PV]),
    Replies0 = [action_reply(A) || A <- Actions],
    Replies = case Mode of
                  negotiate ->
                      negotiate(CH, PV, Actions, Replies0);
                  _ ->
                      Replies0
              end,
    case Mode of
        slow ->
            timer:sleep(1500),
            {discard_ack, Replies};
        ack ->
            {{handle_ack, ack_data}, Replies};
        segmented_ack ->
            {{handle_ack, ack_data}, Replies};
        _ ->
            {discard_ack, Replies}
    end.
handle_trans_request(CH, PV, Actions, _Extra) ->
    handle_trans_request(CH, PV, Actions).

handle_trans_long_request(_CH, _PV, _Data) -> {discard_ack, []}.
handle_trans_long_request(_CH, _PV, _Data, _Extra) -> {discard_ack, []}.
handle_trans_reply(_CH, _PV, _Reply, _Data) -> ok.
handle_trans_reply(_CH, _PV, _Reply, _Data, _Extra) -> ok.
handle_trans_ack(_CH, _PV, Status, _Data) ->
    io:format("ack ~w~n", [Status]),
    ok.
handle_trans_ack(_CH, _PV, _Status, _Data, _Extra) -> ok.
handle_unexpected_trans(_CH, _PV, _Trans) -> ok.
handle_unexpected_trans(_CH, _PV, _Trans, _Extra) -> ok.
handle_trans_request_abort(_CH, _PV, _TransNo, _Pid) -> ok.
handle_trans_request_abort(_CH, _PV, _TransNo, _Pid, _Extra) -> ok.
handle_segment_reply(_CH, _PV, _TransNo, SN, SC) ->
    io:format("segment reply ~w ~w~n", [SN, SC]),
    ok.
handle_segment_reply(_CH, _PV, _TransNo, _SN, _SC, _Extra) -> ok.

%% The version a registration offers (its ServiceChangeVersion, or the
%% version of its message), against ours: the connection and the reply's
%% ServiceChangeVersion take the lower.
negotiate(CH, PV, Actions, Replies) ->
    case [offered(Parm, PV) || {'ActionRequest', _, _, _, Cmds} <- Actions,
                               {'CommandRequest',
                                {serviceChangeReq,
                                 {'ServiceChangeRequest', [{megaco_term_id, false, ["root"]}],
                                  Parm}}, _, _} <- Cmds] of
        [Offered | _] ->
            V = min(Offered, persistent_term:get(otp_mgc_version)),
            ok = megaco:update_conn_info(CH, protocol_version, V),
            io:format("negotiated ~w~n", [V]),
            [with_version(R, V) || R <- Replies];
        [] ->
            Replies
    end.

%% 'ServiceChangeParm'{serviceChangeMethod, serviceChangeAddress,
%% serviceChangeVersion, ...}
offered(Parm, PV) ->
    case element(4, Parm) of
        asn1_NOVALUE -> PV;
        V -> V
    end.

with_version({'ActionReply', Cid, ED, CR, Cmds}, V) ->
    {'ActionReply', Cid, ED, CR,
     [case C of
          {serviceChangeReply,
           {'ServiceChangeReply', Tids, {serviceChangeResParms, Parm}}} ->
              {serviceChangeReply,
               {'ServiceChangeReply', Tids,
                {serviceChangeResParms, setelement(4, Parm, V)}}};
          _ ->
              C
      end || C <- Cmds]}.

%% 'ActionRequest'{contextId, contextRequest, contextAttrAuditReq, commandRequests}
action_reply({'ActionRequest', Cid, _, _, Cmds}) ->
    Replies = [command_reply(C) || C <- Cmds],
    case lists:keyfind(error, 1, Replies) of
        {error, ED} ->
            {'ActionReply', Cid, ED, asn1_NOVALUE, []};
        false ->
            {'ActionReply', Cid, asn1_NOVALUE, asn1_NOVALUE, Replies}
    end.

%% 'CommandRequest'{command, optional, wildcardReturn}
command_reply({'CommandRequest', {serviceChangeReq, {'ServiceChangeRequest', Tids, _}}, _, _}) ->
    io:format("service change~n"),
    Parm = {'ServiceChangeResParm', asn1_NOVALUE, {portNumber, 2944},
            asn1_NOVALUE, asn1_NOVALUE, asn1_NOVALUE},
    {serviceChangeReply, {'ServiceChangeReply', Tids, {serviceChangeResParms, Parm}}};
command_reply({'CommandRequest', {notifyReq, {'NotifyRequest', Tids, _, _}}, _, _}) ->
    io:format("notify~n"),
    {notifyReply, {'NotifyReply', Tids, asn1_NOVALUE}};
command_reply(_) ->
    {error, {'ErrorDescriptor', 501, "Not Implemented"}}.
