#!/usr/bin/env escript
%% -*- erlang -*-
%%
%% Erlang/OTP's megaco stack under load and fan-out, driven by
%% crates/megaco-load (`megaco load --vs-otp`, `megaco bench fanout
%% --vs-otp`). Lines on standard output are tab-separated; standard input
%% carries commands and its end stops the node. Every mode also stops by
%% itself after MAXSECS seconds.
%%
%% Usage:
%%   escript otp_load.escript mgc    PORT udp|tcp ENCODING VERSION MAXSECS
%%   escript otp_load.escript fanout ENCODING VERSION MAXSECS
%%
%% ENCODING: pretty | compact | ber. PORT 0 picks a free UDP port.
%%
%% mgc: a controller that answers every command: ServiceChange, Notify,
%% Add (a new context for `$`), Modify, Subtract, AuditValue.
%%
%% fanout: the same controller; gateways register with it (each
%% registration is a connection, megaco:connect done by the stack), then
%% for each command line
%%     round N PASSES FILE
%% it sends the request read from FILE (one message in pretty text; its
%% first transaction's actions) to the first N registered gateways with
%% megaco:cast/3, waits for every reply (handle_trans_reply), and prints
%%     row N PASS MICROSECONDS ANSWERED ERRORS
%% per pass, then `done`. `count` prints `count K` (gateways registered).
%%
%% Output lines: `pid OSPID`, `port N`, `info KEY VALUE`, `row ...`,
%% `count K`, `done`, `error TEXT`.

-module(otp_load).
-mode(compile).

-export([main/1]).
-export([handle_connect/2, handle_connect/3, handle_disconnect/3,
         handle_syntax_error/3, handle_syntax_error/4,
         handle_message_error/3, handle_message_error/4,
         handle_trans_request/3, handle_trans_request/4,
         handle_trans_long_request/3, handle_trans_long_request/4,
         handle_trans_reply/4, handle_trans_reply/5,
         handle_trans_ack/4, handle_trans_ack/5,
         handle_unexpected_trans/3, handle_unexpected_trans/4,
         handle_trans_request_abort/4, handle_trans_request_abort/5,
         handle_segment_reply/5, handle_segment_reply/6]).

main(["mgc", PortS, Transport, Enc, VsnS, MaxS]) ->
    Port = start(list_to_integer(PortS), list_to_atom(Transport), Enc,
                 list_to_integer(VsnS), list_to_integer(MaxS)),
    io:format("port\t~w~n", [Port]),
    loop(list_to_integer(VsnS), Enc);
main(["fanout", Enc, VsnS, MaxS]) ->
    Port = start(0, udp, Enc, list_to_integer(VsnS), list_to_integer(MaxS)),
    io:format("port\t~w~n", [Port]),
    loop(list_to_integer(VsnS), Enc);
main(_) ->
    io:format(standard_error, "usage: see the comment at the top~n", []),
    erlang:halt(2).

start(Port, Transport, Enc, Vsn, MaxSecs) ->
    io:format("pid\t~s~n", [os:getpid()]),
    io:format("info\totp_release\t~s~n", [erlang:system_info(otp_release)]),
    ok = application:load(megaco),
    {ok, MV} = application:get_key(megaco, vsn),
    io:format("info\tmegaco\t~s~n", [MV]),
    io:format("info\tschedulers\t~w~n", [erlang:system_info(schedulers)]),
    %% Bounded: the node stops by itself.
    spawn(fun() -> timer:sleep(MaxSecs * 1000), erlang:halt(0) end),
    ets:new(otp_load_conns, [named_table, public, ordered_set]),
    ok = megaco:start(),
    Mid = {ip4Address, {'IP4Address', [127, 0, 0, 1], 2944}},
    ok = megaco:start_user(Mid, [{user_mod, ?MODULE},
                                 {send_mod, send_mod(Transport)},
                                 {encoding_mod, encoder(Enc)},
                                 {encoding_config, []},
                                 {protocol_version, Vsn}]),
    RH = megaco:user_info(Mid, receive_handle),
    listen(Transport, Port, RH).

encoder("pretty") -> megaco_pretty_text_encoder;
encoder("compact") -> megaco_compact_text_encoder;
encoder("ber") -> megaco_ber_encoder.

send_mod(udp) -> megaco_udp;
send_mod(tcp) -> megaco_tcp.

listen(udp, Port, RH) ->
    {ok, Sup} = megaco_udp:start_transport(),
    {ok, SH, _Ctrl} = megaco_udp:open(Sup, [{port, Port}, {receive_handle, RH}]),
    %% Room for a fan-out's replies arriving at once (as ours has).
    ok = inet:setopts(megaco_udp:socket(SH), [{recbuf, 4194304}, {sndbuf, 4194304}]),
    {ok, Bound} = inet:port(megaco_udp:socket(SH)),
    Bound;
listen(tcp, Port, RH) ->
    {ok, Sup} = megaco_tcp:start_transport(),
    ok = megaco_tcp:listen(Sup, [{port, Port}, {receive_handle, RH}]),
    Port.

%% Commands from standard input, until it ends.
loop(Vsn, Enc) ->
    case io:get_line('') of
        eof -> erlang:halt(0);
        {error, _} -> erlang:halt(0);
        Line ->
            case string:tokens(string:trim(Line), " \t") of
                ["count"] ->
                    io:format("count\t~w~n", [ets:info(otp_load_conns, size)]);
                ["round", NS, PS, File] ->
                    round(list_to_integer(NS), list_to_integer(PS), File, Vsn);
                ["quit"] -> erlang:halt(0);
                Other -> io:format("error\tunknown command ~p~n", [Other])
            end,
            loop(Vsn, Enc)
    end.

round(N, Passes, File, Vsn) ->
    {ok, Text} = file:read_file(File),
    {ok, {'MegacoMessage', _, {'Message', _, _, {transactions, [{transactionRequest, T} | _]}}}} =
        megaco_pretty_text_encoder:decode_message([], Vsn, Text),
    {'TransactionRequest', _, Actions} = T,
    Conns = lists:sublist([CH || {_, CH} <- ets:tab2list(otp_load_conns)], N),
    [pass(length(Conns), P, Conns, Actions) || P <- lists:seq(1, Passes)],
    io:format("done~n").

pass(N, P, Conns, Actions) ->
    Self = self(),
    T0 = erlang:monotonic_time(microsecond),
    [ok = megaco:cast(CH, Actions, [{reply_data, Self}]) || CH <- Conns],
    {Ok, Err} = collect(N, 0, 0),
    T1 = erlang:monotonic_time(microsecond),
    io:format("row\t~w\t~w\t~w\t~w\t~w~n", [N, P, T1 - T0, Ok, Err]).

collect(0, Ok, Err) -> {Ok, Err};
collect(Left, Ok, Err) ->
    receive
        {otp_load_reply, {ok, Replies}} when is_list(Replies) ->
            case lists:any(fun has_error/1, Replies) of
                false -> collect(Left - 1, Ok + 1, Err);
                true -> collect(Left - 1, Ok, Err + 1)
            end;
        {otp_load_reply, _} -> collect(Left - 1, Ok, Err + 1)
    after 10000 ->
        {Ok, Err + Left}
    end.

has_error({'ActionReply', _, ED, _, _}) -> ED =/= asn1_NOVALUE;
has_error(_) -> true.

%% ---------------------------------------------------------------- user

handle_connect(CH, _PV) ->
    ets:insert(otp_load_conns, {erlang:unique_integer([monotonic]), CH}),
    ok.
handle_connect(CH, PV, _Extra) -> handle_connect(CH, PV).
handle_disconnect(_CH, _PV, _Reason) -> ok.
handle_syntax_error(_RH, _PV, _ED) -> reply.
handle_syntax_error(_RH, _PV, _ED, _Extra) -> reply.
handle_message_error(_CH, _PV, _ED) -> ok.
handle_message_error(_CH, _PV, _ED, _Extra) -> ok.

handle_trans_request(_CH, _PV, Actions) ->
    {discard_ack, [action_reply(A) || A <- Actions]}.
handle_trans_request(CH, PV, Actions, _Extra) ->
    handle_trans_request(CH, PV, Actions).

handle_trans_long_request(_CH, _PV, _Data) -> {discard_ack, []}.
handle_trans_long_request(_CH, _PV, _Data, _Extra) -> {discard_ack, []}.

handle_trans_reply(_CH, _PV, Reply, Pid) when is_pid(Pid) ->
    Pid ! {otp_load_reply, Reply},
    ok;
handle_trans_reply(_CH, _PV, _Reply, _Data) -> ok.
handle_trans_reply(CH, PV, Reply, Data, _Extra) -> handle_trans_reply(CH, PV, Reply, Data).
handle_trans_ack(_CH, _PV, _Status, _Data) -> ok.
handle_trans_ack(_CH, _PV, _Status, _Data, _Extra) -> ok.
handle_unexpected_trans(_CH, _PV, _Trans) -> ok.
handle_unexpected_trans(_CH, _PV, _Trans, _Extra) -> ok.
handle_trans_request_abort(_CH, _PV, _TransNo, _Pid) -> ok.
handle_trans_request_abort(_CH, _PV, _TransNo, _Pid, _Extra) -> ok.
handle_segment_reply(_CH, _PV, _TransNo, _SN, _SC) -> ok.
handle_segment_reply(_CH, _PV, _TransNo, _SN, _SC, _Extra) -> ok.

%% 'ActionRequest'{contextId, contextRequest, contextAttrAuditReq, commandRequests}
action_reply({'ActionRequest', Cid0, _, _, Cmds}) ->
    Cid = case Cid0 of
              16#FFFFFFFE -> erlang:unique_integer([positive, monotonic]) band 16#FFFFFF + 1;
              _ -> Cid0
          end,
    {'ActionReply', Cid, asn1_NOVALUE, asn1_NOVALUE, [command_reply(C) || C <- Cmds]}.

command_reply({'CommandRequest', Cmd, _, _}) -> reply(Cmd).

reply({serviceChangeReq, {'ServiceChangeRequest', Tids, _}}) ->
    Parm = {'ServiceChangeResParm', asn1_NOVALUE, asn1_NOVALUE,
            asn1_NOVALUE, asn1_NOVALUE, asn1_NOVALUE},
    {serviceChangeReply, {'ServiceChangeReply', Tids, {serviceChangeResParms, Parm}}};
reply({notifyReq, {'NotifyRequest', Tids, _, _}}) ->
    {notifyReply, {'NotifyReply', Tids, asn1_NOVALUE}};
reply({addReq, {'AmmRequest', Tids, _}}) ->
    {addReply, {'AmmsReply', Tids, asn1_NOVALUE}};
reply({moveReq, {'AmmRequest', Tids, _}}) ->
    {moveReply, {'AmmsReply', Tids, asn1_NOVALUE}};
reply({modReq, {'AmmRequest', Tids, _}}) ->
    {modReply, {'AmmsReply', Tids, asn1_NOVALUE}};
reply({subtractReq, {'SubtractRequest', Tids, _}}) ->
    {subtractReply, {'AmmsReply', Tids, asn1_NOVALUE}};
reply({auditValueRequest, AR}) ->
    {auditValueReply, {auditResult, {'AuditResult', element(2, AR), []}}};
reply({auditCapRequest, AR}) ->
    {auditCapReply, {auditResult, {'AuditResult', element(2, AR), []}}}.
