#!/usr/bin/env escript
%% Decodes, with Erlang/OTP's megaco codecs, messages that the Rust codecs
%% encoded, and compares each with OTP's decode of the original text.
%%
%% Usage: interop.escript DIR
%% DIR holds NAME.ref.txt (the original, pretty text) and any of
%% NAME.pretty.txt, NAME.compact.txt, NAME.ber, NAME.per (our encodings).
%% Prints one line per encoding: "NAME CODEC ok" or "NAME CODEC fail REASON".
%% The target for each codec is OTP's decode of OTP's own encoding of the
%% reference text with that codec.
-mode(compile).

main([Dir]) ->
    Refs = filelib:wildcard(filename:join(Dir, "*.ref.txt")),
    lists:foreach(fun(Ref) -> check(Dir, Ref) end, lists:sort(Refs)),
    io:format("done~n");
main(_) ->
    io:format(standard_error, "usage: interop.escript DIR~n", []),
    halt(2).

check(Dir, Ref) ->
    Name = filename:basename(Ref, ".ref.txt"),
    {ok, RefBin} = file:read_file(Ref),
    case megaco_pretty_text_encoder:decode_message([], dynamic, RefBin) of
        {ok, Expected} ->
            Version = element(2, element(3, Expected)),
            Codecs = [{"pretty", ".pretty.txt", megaco_pretty_text_encoder, dynamic},
                      {"compact", ".compact.txt", megaco_compact_text_encoder, dynamic},
                      {"ber", ".ber", megaco_ber_encoder, Version},
                      {"per", ".per", megaco_per_encoder, Version}],
            [compare(Name, Codec, filename:join(Dir, Name ++ Ext), Mod, V, Expected)
             || {Codec, Ext, Mod, V} <- Codecs];
        Error ->
            io:format("~s ref fail ~0p~n", [Name, Error])
    end.

compare(Name, Codec, File, Mod, Version, TextModel) ->
    %% What OTP itself gets back from its own encoding with this codec: the
    %% binary codecs canonicalise some text shapes (audit tokens become a
    %% bit string), so that, not the text decode, is the target.
    Expected = case Mod:encode_message([], Version, TextModel) of
                   {ok, Own} ->
                       case Mod:decode_message([], Version, iolist_to_binary(Own)) of
                           {ok, Back} -> Back;
                           _ -> TextModel
                       end;
                   _ -> TextModel
               end,
    case file:read_file(File) of
        {error, enoent} ->
            ok;
        {ok, Bin} ->
            Result = try Mod:decode_message([], Version, Bin)
                     catch C:E -> {error, {C, E}}
                     end,
            case Result of
                {ok, Expected} ->
                    io:format("~s ~s ok~n", [Name, Codec]);
                {ok, Other} ->
                    io:format("~s ~s fail differs: ~0P~n", [Name, Codec, Other, 60]);
                Error ->
                    io:format("~s ~s fail ~0P~n", [Name, Codec, Error, 40])
            end
    end.
