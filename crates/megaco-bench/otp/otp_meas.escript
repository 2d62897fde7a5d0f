#!/usr/bin/env escript
%% -*- erlang -*-
%%! -noinput
%%
%% Measures Erlang/OTP's megaco codecs on a corpus, the same way as the
%% Rust measurement suite (crates/megaco-bench), and prints the results
%% as tab-separated lines on standard output; progress and errors go to
%% standard error.
%%
%% Usage:
%%   escript otp_meas.escript CORPUS meas   FACTOR        [CONFIG ...]
%%   escript otp_meas.escript CORPUS mstone SECONDS FACTOR [CONFIG ...]
%%   escript otp_meas.escript CORPUS configs
%%
%% CORPUS is an Erlang term file ({Codec, [{Name, <<"...">>}, ...]}.) or a
%% directory with one message per file, in pretty or compact text.
%% CONFIG names are those printed by `configs` (default: all that load).
%%
%% Output lines:
%%   info     KEY VALUE
%%   config   NAME                         (a configuration that loads)
%%   row      CONFIG MESSAGE SIZE ENCODE_US DECODE_US
%%   fail     CONFIG MESSAGE REASON
%%   mstone   CONFIG OPERATIONS
%%   total    OPERATIONS SECONDS
%%
%% meas: per message and configuration, the message is encoded once (its
%% size), then encode and decode are each warmed up for a tenth of
%% 1 s x FACTOR, and run as many times as fit in 1 s x FACTOR, in a fresh
%% process; the mean is printed in microseconds.
%%
%% mstone: FACTOR runner processes per configuration, started together,
%% each looping over the corpus (a pass decoding every message, the next
%% encoding every result) for SECONDS; an operation is one decode or one
%% encode of one message.

-mode(compile).

main([_Corpus, "configs"]) ->
    {Configs, Stop} = configs([]),
    [out("config\t~s~n", [Name]) || {Name, _, _} <- Configs],
    Stop(),
    halt(0);
main([Corpus, "meas", Factor | Names]) ->
    FactorF = number(Factor),
    info(),
    {Configs, Stop} = configs(Names),
    {Codec, Msgs} = load(Corpus),
    Terms = decode_corpus(Codec, Msgs),
    [meas_config(C, Terms, FactorF) || C <- Configs],
    Stop(),
    halt(0);
main([Corpus, "mstone", Seconds, Factor | Names]) ->
    info(),
    {Configs, Stop} = configs(Names),
    {Codec, Msgs} = load(Corpus),
    Terms = decode_corpus(Codec, Msgs),
    mstone(Configs, Terms, round(number(Seconds) * 1000), list_to_integer(Factor)),
    Stop(),
    halt(0);
main(_) ->
    err("usage: otp_meas.escript CORPUS (meas FACTOR | mstone SECONDS FACTOR | configs) [CONFIG ...]~n", []),
    halt(2).

number(S) ->
    try list_to_float(S) catch error:badarg -> float(list_to_integer(S)) end.

out(F, A) -> io:format(standard_io, F, A).
err(F, A) -> io:format(standard_error, F, A).

info() ->
    _ = application:load(megaco),
    {ok, MegacoVsn} = application:get_key(megaco, vsn),
    out("info\totp_release\t~s~n", [erlang:system_info(otp_release)]),
    out("info\tmegaco\t~s~n", [MegacoVsn]),
    out("info\tschedulers\t~p~n", [erlang:system_info(schedulers_online)]),
    out("info\tflex\t~p~n", [megaco_flex_scanner:is_enabled()]).

%% ---------------------------------------------------------------------
%% The corpus

load(Path) ->
    case filelib:is_dir(Path) of
        true ->
            Files = lists:sort(filelib:wildcard("*", Path)),
            Msgs = [{filename:rootname(F), read(filename:join(Path, F))}
                    || F <- Files, hd(F) =/= $.,
                       filelib:is_regular(filename:join(Path, F))],
            {codec_of_dir(filename:basename(Path)), Msgs};
        false ->
            case file:consult(Path) of
                {ok, [{Codec, Msgs}]} ->
                    {Codec, [{atom_to_list(N), B} || {N, B} <- Msgs]};
                Other ->
                    err("cannot read corpus ~s: ~p~n", [Path, Other]),
                    halt(1)
            end
    end.

read(F) ->
    {ok, B} = file:read_file(F),
    B.

codec_of_dir("compact") -> compact;
codec_of_dir(_) -> pretty.

decode_corpus(Codec, Msgs) ->
    Mod = case Codec of
              compact -> megaco_compact_text_encoder;
              _ -> megaco_pretty_text_encoder
          end,
    Conf = [{version3, v3}],
    lists:foldr(
      fun({Name, Bin}, Acc) ->
              case catch decode(Mod, Conf, Bin) of
                  {ok, V, Term} -> [{Name, V, Term} | Acc];
                  Error ->
                      out("fail\tcorpus\t~s\t~s~n", [Name, reason(Error)]),
                      Acc
              end
      end, [], Msgs).

decode(Mod, Conf, Bin) ->
    {ok, V} = Mod:version_of(Conf, Bin),
    {ok, Term} = Mod:decode_message(Conf, V, Bin),
    {ok, V, Term}.

reason(R) ->
    S = lists:flatten(io_lib:format("~0p", [R])),
    [case C of $\t -> $\s; $\n -> $\s; _ -> C end || C <- lists:sublist(S, 300)].

%% ---------------------------------------------------------------------
%% Configurations: {Name, Module, Config}

configs(Names) ->
    {FlexConf, Stop} = start_flex(),
    All = [{"pretty", megaco_pretty_text_encoder, []}]
        ++ [{"pretty [flex]", megaco_pretty_text_encoder, FlexConf} || FlexConf =/= none]
        ++ [{"compact", megaco_compact_text_encoder, []}]
        ++ [{"compact [flex]", megaco_compact_text_encoder, FlexConf} || FlexConf =/= none]
        ++ [{"ber", megaco_ber_encoder, []},
            {"ber [native]", megaco_ber_encoder, [native]},
            {"per", megaco_per_encoder, []},
            {"per [native]", megaco_per_encoder, [native]},
            {"erl_dist", megaco_erl_dist_encoder, []},
            {"erl_dist [megaco_compressed]", megaco_erl_dist_encoder, [megaco_compressed]},
            {"erl_dist [compressed]", megaco_erl_dist_encoder, [compressed]},
            {"erl_dist [megaco_compressed,compressed]", megaco_erl_dist_encoder,
             [megaco_compressed, compressed]}],
    Selected = case Names of
                   [] -> All;
                   _ -> [C || {N, _, _} = C <- All, lists:member(N, Names)]
               end,
    {[{N, M, [{version3, v3} | C]} || {N, M, C} <- Selected], Stop}.

%% The flex scanner is a port owned by a process that lives for the run.
start_flex() ->
    case catch megaco_flex_scanner:is_enabled() of
        true ->
            Self = self(),
            Pid = spawn(fun() ->
                                case catch megaco_flex_scanner:start() of
                                    {ok, Port} -> Self ! {flex, self(), {flex, Port}};
                                    Other -> Self ! {flex, self(), {error, Other}}
                                end,
                                receive stop -> ok end
                        end),
            receive
                {flex, Pid, {flex, Port}} ->
                    {[{flex, Port}], fun() -> Pid ! stop, ok end};
                {flex, Pid, {error, Reason}} ->
                    err("flex scanner does not load: ~p~n", [Reason]),
                    {none, fun() -> ok end}
            after 10000 ->
                    {none, fun() -> ok end}
            end;
        _ ->
            {none, fun() -> ok end}
    end.

%% ---------------------------------------------------------------------
%% meas

meas_config({Name, Mod, Conf}, Terms, Factor) ->
    err("[otp] meas ~s~n", [Name]),
    BudgetUs = max(1, round(1000000 * Factor)),
    [meas_msg(Name, Mod, Conf, M, BudgetUs) || M <- Terms],
    ok.

meas_msg(Name, Mod, Conf, {MsgName, V, Term0}, BudgetUs) ->
    case catch prepare(Mod, Conf, V, Term0) of
        {ok, Term, Bin} ->
            Enc = isolated(fun() ->
                                   time_per_op(BudgetUs, fun() -> {ok, _} = Mod:encode_message(Conf, V, Term) end)
                           end),
            Dec = isolated(fun() ->
                                   time_per_op(BudgetUs, fun() -> {ok, _} = Mod:decode_message(Conf, V, Bin) end)
                           end),
            case {Enc, Dec} of
                {{ok, E}, {ok, D}} ->
                    out("row\t~s\t~s\t~w\t~.4f\t~.4f~n", [Name, MsgName, byte_size(Bin), E, D]);
                _ ->
                    out("fail\t~s\t~s\t~s~n", [Name, MsgName, reason({Enc, Dec})])
            end;
        Error ->
            out("fail\t~s\t~s\t~s~n", [Name, MsgName, reason(Error)])
    end.

%% The message in this configuration's own form: [native] binary codecs
%% take the termination ids in ASN.1 form, so (as OTP's meas does) the
%% message is encoded without `native`, decoded with the configuration,
%% and encoded again.
prepare(Mod, Conf, V, Term0) ->
    {ok, Bin0} = Mod:encode_message(Conf -- [native], V, Term0),
    {ok, Term} = Mod:decode_message(Conf, V, iolist_to_binary(Bin0)),
    {ok, Bin} = Mod:encode_message(Conf, V, Term),
    {ok, _} = Mod:decode_message(Conf, V, iolist_to_binary(Bin)),
    {ok, Term, iolist_to_binary(Bin)}.

isolated(F) ->
    {Pid, Ref} = spawn_monitor(fun() -> exit({result, F()}) end),
    receive
        {'DOWN', Ref, process, Pid, {result, R}} -> {ok, R};
        {'DOWN', Ref, process, Pid, Other} -> {error, Other}
    end.

now_us() -> erlang:monotonic_time(microsecond).

time_per_op(BudgetUs, F) ->
    T0 = now_us(),
    Done = warm(F, 1, 0, T0, BudgetUs div 10),
    PerOp = max(now_us() - T0, 1) / Done,
    Count = max(1, round(BudgetUs / PerOp)),
    T1 = now_us(),
    loop(F, Count),
    (now_us() - T1) / Count.

warm(F, Batch, Done, T0, WarmUs) ->
    loop(F, Batch),
    case now_us() - T0 >= WarmUs of
        true -> Done + Batch;
        false -> warm(F, Batch * 2, Done + Batch, T0, WarmUs)
    end.

loop(_F, 0) -> ok;
loop(F, N) -> F(), loop(F, N - 1).

%% ---------------------------------------------------------------------
%% mstone (mstone1)

mstone(Configs, Terms, RunMs, Factor) ->
    Self = self(),
    Runners =
        lists:append(
          [[begin
                Bins = [{V, B} || {_, V, T} <- Terms,
                                  {ok, _, B} <- [catch prepare(Mod, Conf, V, T)]],
                spawn_opt(fun() -> runner(Self, Name, Mod, Conf, Bins, RunMs) end,
                          [link, {min_heap_size, 16#ffff}])
            end || _ <- lists:seq(1, Factor)]
           || {Name, Mod, Conf} <- Configs]),
    [receive {ready, R} -> ok end || R <- Runners],
    T0 = now_us(),
    [R ! go || R <- Runners],
    Counts = [receive {done, R, Name, N} -> {Name, N} end || R <- Runners],
    Secs = (now_us() - T0) / 1000000,
    Totals = lists:foldl(fun({Name, N}, Acc) ->
                                 orddict:update_counter(Name, N, Acc)
                         end, orddict:new(), Counts),
    [out("mstone\t~s\t~w~n", [Name, proplists:get_value(Name, Totals, 0)])
     || {Name, _, _} <- Configs],
    out("total\t~w\t~.3f~n", [lists:sum([N || {_, N} <- Counts]), Secs]).

runner(Parent, Name, Mod, Conf, Bins, RunMs) ->
    {_, Warm} = pass(Mod, Conf, Bins),
    {_, Bins2} = pass(Mod, Conf, Warm),
    Parent ! {ready, self()},
    receive go -> ok end,
    erlang:send_after(RunMs, self(), stop),
    N = runner_loop(Mod, Conf, Bins2, 0),
    Parent ! {done, self(), Name, N}.

runner_loop(Mod, Conf, Items, N) ->
    receive
        stop -> N
    after 0 ->
            {Inc, Next} = pass(Mod, Conf, Items),
            runner_loop(Mod, Conf, Next, N + Inc)
    end.

pass(Mod, Conf, Items) ->
    Next = [case X of
                B when is_binary(B) ->
                    {ok, M} = Mod:decode_message(Conf, V, B),
                    {V, M};
                M ->
                    {ok, B} = Mod:encode_message(Conf, V, M),
                    {V, iolist_to_binary(B)}
            end || {V, X} <- Items],
    {length(Next), Next}.
