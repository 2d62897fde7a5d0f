%% A minimal Erlang/OTP megaco MG for the interop tests: over UDP or TCP
%% (TPKT), sends a
%% ServiceChange (Restart on ROOT) and then a Notify to the MGC at
%% 127.0.0.1:PORT with megaco:call/3, and prints each result.
%%
%% erl -noshell -pa DIR -s otp_mg start PORT ENCODING VERSION [TRANSPORT [MODE]]
%%   ENCODING: pretty | compact | ber
%%   TRANSPORT: udp (default) | tcp
%%   MODE: plain (default) | notify3 (then also a Notify with three
%%   actions, printed as "notify3 RESULT") | negotiate (the ServiceChange
%%   offers VERSION in its ServiceChangeVersion; the version of the
%%   MGC's reply, or VERSION without one, becomes the connection's with
%%   megaco:update_conn_info/3, as H.248.1 11.3 asks and OTP leaves to its
%%   user, printed as "negotiated V"; the Notify goes out in it)
%%
%% The requests are built by decoding their text form with OTP's own text
%% decoder, so they are the records of the version in use.
-module(otp_mg).

-export([start/1]).
-export([handle_connect/2, handle_disconnect/3, handle_syntax_error/3,
         handle_message_error/3, handle_trans_request/3,
         handle_trans_long_request/3, handle_trans_reply/4,
         handle_trans_ack/4, handle_unexpected_trans/3,
         handle_trans_request_abort/4, handle_segment_reply/5]).

start(Args) ->
    spawn(fun() -> run(Args) end),
    ok.

run([PortA, EncA, VsnA]) ->
    run([PortA, EncA, VsnA, udp]);
run([PortA, EncA, VsnA, Transport]) ->
    run([PortA, EncA, VsnA, Transport, plain]);
run([PortA, EncA, VsnA, Transport, Mode]) ->
    Port = list_to_integer(atom_to_list(PortA)),
    Vsn = list_to_integer(atom_to_list(VsnA)),
    EncMod = case EncA of
                 pretty -> megaco_pretty_text_encoder;
                 compact -> megaco_compact_text_encoder;
                 ber -> megaco_ber_encoder
             end,
    ok = megaco:start(),
    Mid = {deviceName, "otpmg"},
    ok = megaco:start_user(Mid, [{user_mod, ?MODULE},
                                 {send_mod, case Transport of
                                                udp -> megaco_udp;
                                                tcp -> megaco_tcp
                                            end},
                                 {encoding_mod, EncMod},
                                 {encoding_config, []},
                                 {protocol_version, Vsn},
                                 {request_timer, 2000}]),
    RH = megaco:user_info(Mid, receive_handle),
    {SH, Ctrl} = open(Transport, Port, RH),
    {ok, CH} = megaco:connect(RH, preliminary_mid, SH, Ctrl),
    V = integer_to_list(Vsn),
    Offer = case Mode of
                negotiate -> "Version = " ++ V ++ ", ";
                _ -> ""
            end,
    SC = actions(Vsn, "MEGACO/" ++ V ++ " [127.0.0.1]:2944 Transaction = 1 { Context = - { "
                 "ServiceChange = ROOT { Services { Method = Restart, " ++ Offer ++
                 "Reason = \"901 mg col boot\" } } } }"),
    SCResult = megaco:call(CH, SC, []),
    io:format("servicechange ~w~n", [SCResult]),
    %% The reply told OTP the MGC's mid: the connection has a new handle.
    [CH2] = megaco:user_info(Mid, connections),
    NV = case Mode of
             negotiate ->
                 Agreed = reply_version(SCResult, Vsn),
                 ok = megaco:update_conn_info(CH2, protocol_version, Agreed),
                 io:format("negotiated ~w~n", [Agreed]),
                 Agreed;
             _ ->
                 Vsn
         end,
    N = actions(NV, "MEGACO/" ++ integer_to_list(NV) ++ " [127.0.0.1]:2944 Transaction = 2 { "
                "Context = 5 { Notify = 11111111/00000000/00000001 { ObservedEvents = 2 { al/of } } } }"),
    io:format("notify ~w~n", [megaco:call(CH2, N, [])]),
    case Mode of
        plain -> ok;
        negotiate -> ok;
        notify3 ->
            N3 = actions(Vsn, "MEGACO/" ++ V ++ " [127.0.0.1]:2944 Transaction = 3 { "
                         ++ string:join(
                              ["Context = " ++ C ++ " { Notify = 11111111/00000000/00000001 "
                               "{ ObservedEvents = 2 { al/of } } }" || C <- ["5", "6", "7"]],
                              ", ") ++ " }"),
            io:format("notify3 ~w~n", [megaco:call(CH2, N3, [])])
    end,
    io:format("done~n"),
    erlang:halt(0).

%% The ServiceChangeVersion of an accepted registration's reply
%% ('ServiceChangeResParm'{serviceChangeMgcId, serviceChangeAddress,
%% serviceChangeVersion, ...}), or Default.
reply_version({_, {ok, Replies}}, Default) ->
    case [element(4, Parm) || {'ActionReply', _, _, _, Cmds} <- Replies,
                              {serviceChangeReply,
                               {'ServiceChangeReply', _, {serviceChangeResParms, Parm}}}
                                  <- Cmds] of
        [V | _] when is_integer(V) -> V;
        _ -> Default
    end;
reply_version(_, Default) ->
    Default.

open(udp, Port, RH) ->
    {ok, Sup} = megaco_udp:start_transport(),
    {ok, SH0, Ctrl} = megaco_udp:open(Sup, [{port, 0}, {receive_handle, RH}]),
    {megaco_udp:create_send_handle(megaco_udp:socket(SH0), {127, 0, 0, 1}, Port), Ctrl};
open(tcp, Port, RH) ->
    {ok, Sup} = megaco_tcp:start_transport(),
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
