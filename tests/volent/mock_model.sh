#!/usr/bin/env bash
# `volent mock-model` from the outside (docs/mock-model.md), driven with curl
# and jq over real sockets:
#   - both APIs through a whole tool-calling conversation (each tool called
#     once, in order, with the first user message's JSON object as its
#     arguments, then "done: N tool call(s)"), answers' shapes and headers;
#   - auth: no key (401 in each API's format), no anthropic-version (400),
#     with --api-key a wrong key is 401 and the right one answered;
#   - malformed JSON and wrong fields (400 naming the field), unknown paths
#     (404), wrong methods (405), a 5 MiB body (413);
#   - --script answers in turn; a bad script or option is exit 2;
#   - --latency-ms/--jitter-ms accepted (answers still right), 300 requests
#     at once all answered, and (python3) 1,600 requests held in flight at
#     once on the server's two threads, every one answered;
#   - GET /stats: requests by API, errors, in flight, Idempotency-Key
#     duplicates; SIGTERM ends it with status 0, after an answer it holds;
#   - a 70 KiB header (431) and garbage bytes (400).
# No check depends on how long anything takes.
#
#   tests/volent/mock_model.sh --volent BIN
#
# Prints `ok N: ...`/`FAIL N: ...` per check and a summary; exit 1 on any
# failure; `skipped: REASON` (exit 0) without curl, jq or the binary.
set -uo pipefail

VOLENT=""
usage() { echo "usage: $0 --volent BIN" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --volent) VOLENT="${2:-}"; shift 2 || break ;;
    *) usage ;;
  esac
done
[[ -n "$VOLENT" ]] || usage
command -v curl >/dev/null || { echo "skipped: curl not found"; exit 0; }
command -v jq >/dev/null || { echo "skipped: jq not found"; exit 0; }
[[ -x "$VOLENT" ]] || { echo "skipped: volent binary '$VOLENT' not found"; exit 0; }
"$VOLENT" mock-model --help >/dev/null 2>&1 || { echo "skipped: this volent has no mock-model command"; exit 0; }
# Many connections at once, on both sides.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

WORK="$(mktemp -d /tmp/volent-mock-model-XXXXXX)"
PID=""
cleanup() {
  [[ -n "$PID" ]] && kill -KILL "$PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

passed=0 failed=0 number=0
check() {  # check NAME CONDITION-EXIT-STATUS [DETAIL]
  local name="$1" status="$2" detail="${3:-}"
  number=$((number + 1))
  if [[ "$status" == 0 ]]; then
    passed=$((passed + 1)); echo "ok $number: $name"
  else
    failed=$((failed + 1)); echo "FAIL $number: $name${detail:+: $detail}"
  fi
}
note() { echo "note: $*"; }

# --- the server ------------------------------------------------------------------
RUN=0 BASE=""
start() {  # start [OPTIONS...]: runs the mock on a free port, sets BASE
  RUN=$((RUN + 1))
  "$VOLENT" mock-model --listen 127.0.0.1:0 "$@" 2>"$WORK/stderr.$RUN" &
  PID=$!
  local line=""
  for _ in $(seq 300); do
    line="$(grep -m1 -E '^volent mock-model: listening on http://127\.0\.0\.1:[0-9]+$' "$WORK/stderr.$RUN")"
    [[ -n "$line" ]] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.05
  done
  if [[ -z "$line" ]]; then
    echo "FAIL: the mock did not report 'volent mock-model: listening on http://HOST:PORT'"
    sed 's/^/  stderr: /' "$WORK/stderr.$RUN"
    exit 1
  fi
  BASE="${line#volent mock-model: listening on }"
}
stop() {  # stop: SIGTERM, returns the exit status
  kill -TERM "$PID"
  local status=0
  wait "$PID" || status=$?
  PID=""
  return "$status"
}

# post PATH BODY [CURL-ARGS...]: sets STATUS, BODY_OUT, CTYPE
post() {
  local path="$1" body="$2"; shift 2
  local out
  out="$(curl -sS -o "$WORK/body" -w '%{http_code} %{content_type}' -X POST "$BASE$path" \
         -H 'Content-Type: application/json' --data-binary "$body" "$@" 2>&1)"
  STATUS="${out%% *}" CTYPE="${out#* }"
  BODY_OUT="$(cat "$WORK/body" 2>/dev/null)"
}
get() {  # get PATH: sets STATUS, BODY_OUT
  STATUS="$(curl -sS -o "$WORK/body" -w '%{http_code}' "$BASE$1" 2>/dev/null)"
  BODY_OUT="$(cat "$WORK/body" 2>/dev/null)"
}
# jqt FILTER: true/false of FILTER on BODY_OUT as an exit status
jqt() { jq -e "$1" >/dev/null 2>&1 <<<"$BODY_OUT"; }
ANT=(-H 'x-api-key: sk-ant-test' -H 'anthropic-version: 2023-06-01')
OAI=(-H 'Authorization: Bearer sk-test')

start --latency-ms 5 --jitter-ms 5

get /healthz
[[ "$STATUS" == 200 ]] && jqt '.status == "ok"'; check "GET /healthz: 200 {status: ok}" $? "$STATUS $BODY_OUT"

# --- Anthropic: a whole conversation --------------------------------------------------
REQ='{"model": "claude-mock", "max_tokens": 512, "system": "You handle refunds.",
      "messages": [{"role": "user", "content": "{\"order\": 42, \"reason\": \"late\"}"}],
      "tools": [{"name": "lookup", "description": "finds an order", "input_schema": {"type": "object"}},
                {"name": "refund", "description": "refunds it", "input_schema": {"type": "object"}}]}'
called=()
for round in 1 2 3 4; do
  post /v1/messages "$REQ" "${ANT[@]}"
  [[ "$STATUS" == 200 ]] || { check "anthropic round $round: 200" 1 "$STATUS $BODY_OUT"; break; }
  if jqt '.stop_reason == "end_turn"'; then break; fi
  jqt '(.id | startswith("msg_")) and .type == "message" and .role == "assistant" and .model == "claude-mock"
       and .stop_reason == "tool_use" and .stop_sequence == null and (.content | length) == 1
       and .content[0].type == "tool_use" and (.content[0].id | startswith("toolu_"))
       and .content[0].input == {"order": 42, "reason": "late"}
       and (.usage.input_tokens | type) == "number" and (.usage.output_tokens | type) == "number"'
  check "anthropic round $round: a tool_use answer of the Messages API's shape, input from the first user message" $? "$BODY_OUT"
  [[ "$CTYPE" == application/json* ]]; check "anthropic round $round: Content-Type application/json" $? "$CTYPE"
  called+=("$(jq -r '.content[0].name' <<<"$BODY_OUT")")
  REQ="$(jq -c --argjson answer "$BODY_OUT" '.messages += [{role: "assistant", content: $answer.content},
          {role: "user", content: [{type: "tool_result", tool_use_id: $answer.content[0].id, content: "ok"}]}]' <<<"$REQ")"
done
[[ "${called[*]}" == "lookup refund" ]]; check "anthropic: each tool called once, in order (lookup refund)" $? "${called[*]}"
jqt '.content == [{"type": "text", "text": "done: 2 tool call(s)"}] and .stop_reason == "end_turn"'
check "anthropic: then the final text 'done: 2 tool call(s)', end_turn" $? "$BODY_OUT"

# --- OpenAI: a whole conversation -------------------------------------------------------
REQ='{"model": "gpt-mock", "messages": [{"role": "system", "content": "You handle refunds."},
        {"role": "user", "content": "refund order 42"}],
      "tools": [{"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}},
                {"type": "function", "function": {"name": "refund", "description": "refunds"}},
                {"type": "function", "function": {"name": "notify", "parameters": {"type": "object"}}}]}'
called=()
for round in 1 2 3 4 5; do
  post /v1/chat/completions "$REQ" "${OAI[@]}"
  [[ "$STATUS" == 200 ]] || { check "openai round $round: 200" 1 "$STATUS $BODY_OUT"; break; }
  if jqt '.choices[0].finish_reason == "stop"'; then break; fi
  jqt '(.id | startswith("chatcmpl-")) and .object == "chat.completion" and (.created | type) == "number"
       and .model == "gpt-mock" and (.choices | length) == 1 and .choices[0].index == 0
       and .choices[0].finish_reason == "tool_calls" and .choices[0].message.role == "assistant"
       and .choices[0].message.content == null and (.choices[0].message.tool_calls | length) == 1
       and (.choices[0].message.tool_calls[0].id | startswith("call_"))
       and .choices[0].message.tool_calls[0].type == "function"
       and (.choices[0].message.tool_calls[0].function.arguments | fromjson) == {}
       and .usage.total_tokens == .usage.prompt_tokens + .usage.completion_tokens'
  check "openai round $round: a tool_calls answer of the Chat Completions shape, arguments {} (text was not JSON)" $? "$BODY_OUT"
  called+=("$(jq -r '.choices[0].message.tool_calls[0].function.name' <<<"$BODY_OUT")")
  REQ="$(jq -c --argjson answer "$BODY_OUT" '.messages += [$answer.choices[0].message,
          {role: "tool", tool_call_id: $answer.choices[0].message.tool_calls[0].id, content: "ok"}]' <<<"$REQ")"
done
[[ "${called[*]}" == "lookup refund notify" ]]; check "openai: each tool called once, in order (lookup refund notify)" $? "${called[*]}"
jqt '.choices[0].message == {"role": "assistant", "content": "done: 3 tool call(s)"} and .choices[0].finish_reason == "stop"'
check "openai: then the final text 'done: 3 tool call(s)', stop" $? "$BODY_OUT"

# --- auth and bad requests -----------------------------------------------------------------
SMALL_A='{"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}'
SMALL_O='{"model": "m", "messages": [{"role": "user", "content": "hi"}]}'
post /v1/messages "$SMALL_A" -H 'anthropic-version: 2023-06-01'
[[ "$STATUS" == 401 ]] && jqt '.type == "error" and .error.type == "authentication_error"'
check "anthropic without x-api-key: 401 authentication_error" $? "$STATUS $BODY_OUT"
post /v1/messages "$SMALL_A" -H 'x-api-key: k'
[[ "$STATUS" == 400 ]] && jqt '.error.type == "invalid_request_error" and (.error.message | contains("anthropic-version"))'
check "anthropic without anthropic-version: 400 naming the header" $? "$STATUS $BODY_OUT"
post /v1/chat/completions "$SMALL_O"
[[ "$STATUS" == 401 ]] && jqt '.error.type == "invalid_request_error" and (.error.message | contains("API key")) and has("type") == false'
check "openai without Authorization: 401 in OpenAI's error format" $? "$STATUS $BODY_OUT"
post /v1/chat/completions "$SMALL_O" -H 'Authorization: sk-test'
[[ "$STATUS" == 401 ]]; check "openai with a key that is not Bearer: 401" $? "$STATUS"
post /v1/messages '{"model": "m", "max_tokens": 8, "messages": [' "${ANT[@]}"
[[ "$STATUS" == 400 ]] && jqt '.type == "error" and .error.type == "invalid_request_error" and (.error.message | contains("not JSON"))'
check "anthropic malformed JSON: 400 invalid_request_error" $? "$STATUS $BODY_OUT"
post /v1/chat/completions '{"model": "m", "messages": {}' "${OAI[@]}"
[[ "$STATUS" == 400 ]] && jqt '.error.type == "invalid_request_error" and .error.code == null'
check "openai malformed JSON: 400 in OpenAI's format" $? "$STATUS $BODY_OUT"
post /v1/messages '{"model": "m", "messages": [{"role": "user", "content": "hi"}]}' "${ANT[@]}"
[[ "$STATUS" == 400 ]] && jqt '.error.message | startswith("max_tokens:")'
check "anthropic without max_tokens: 400 naming max_tokens" $? "$STATUS $BODY_OUT"
post /v1/chat/completions '{"model": "m", "messages": [{"role": "user", "content": "x"}, {"role": "tool", "tool_call_id": "c", "content": "r"}]}' "${OAI[@]}"
[[ "$STATUS" == 400 ]] && jqt '.error.message | startswith("messages[1].role:")'
check "openai tool message without a preceding tool call: 400 naming messages[1]" $? "$STATUS $BODY_OUT"
post /v1/messages '{"model": "m", "max_tokens": 8, "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_x", "content": "r"}]}]}' "${ANT[@]}"
[[ "$STATUS" == 400 ]] && jqt '.error.message | contains("unexpected `tool_use_id`")'
check "anthropic tool_result with no tool_use before it: 400" $? "$STATUS $BODY_OUT"
post /v1/embeddings '{}' "${OAI[@]}"
[[ "$STATUS" == 404 ]] && jqt '.error.message | contains("/v1/embeddings")'
check "unknown path: 404 naming it" $? "$STATUS $BODY_OUT"
get /v1/messages
[[ "$STATUS" == 405 ]]; check "GET /v1/messages: 405" $? "$STATUS"
head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' 'x' >"$WORK/big"
out="$(curl -sS -o "$WORK/body" -w '%{http_code}' -X POST "$BASE/v1/messages" "${ANT[@]}" \
       -H 'Content-Type: application/json' --data-binary @"$WORK/big" 2>/dev/null)"
BODY_OUT="$(cat "$WORK/body" 2>/dev/null)"
[[ "$out" == 413 ]] && jqt '.error.type == "request_too_large"'
check "a 5 MiB body: 413 request_too_large" $? "$out $BODY_OUT"
big_header="X-Big: $(head -c 70000 /dev/zero | tr '\0' 'y')"
out="$(curl -sS -o /dev/null -w '%{http_code}' "$BASE/healthz" -H "$big_header" 2>/dev/null)"
[[ "$out" == 431 ]]; check "a 70 KiB header: 431" $? "$out"
if exec 3<>"/dev/tcp/127.0.0.1/${BASE##*:}" 2>/dev/null; then
  printf 'GARBAGE \x01\x02 nonsense\r\n\r\n' >&3
  reply="$(timeout 10 head -c 12 <&3 2>/dev/null)"
  exec 3<&- 3>&-
  [[ "$reply" == "HTTP/1.1 400" ]]; check "garbage bytes: 400" $? "$reply"
fi
get /healthz
[[ "$STATUS" == 200 ]]; check "still serves /healthz after the bad requests" $?

# --- stats and idempotency keys ------------------------------------------------------------
get /stats
before="$BODY_OUT"
for i in 1 2 3; do post /v1/chat/completions "$SMALL_O" "${OAI[@]}" -H 'Idempotency-Key: agent-a/run-1/3'; done
post /v1/messages "$SMALL_A" "${ANT[@]}" -H 'Idempotency-Key: agent-a/run-1/4'
get /stats
jq -e --argjson b "$before" '.requests == $b.requests + 4 and .by_api.openai == $b.by_api.openai + 3
      and .by_api.anthropic == $b.by_api.anthropic + 1 and .idempotency_keys == $b.idempotency_keys + 2
      and .duplicates == $b.duplicates + 2 and .in_flight == 0' >/dev/null <<<"$BODY_OUT"
check "stats: 4 more requests by API, 2 new Idempotency-Keys, 2 duplicates, none in flight" $? "$before -> $BODY_OUT"
jqt '.errors >= 9 and .answers.tool_calls == 5 and .answers.text >= 2 and .peak_in_flight >= 1'
check "stats: errors and answers counted" $? "$BODY_OUT"

# --- 300 at once -----------------------------------------------------------------------------
stop; check "SIGTERM: exit 0" $? ""
start --latency-ms 1000 --jitter-ms 200
: >"$WORK/parallel.cfg"
for i in $(seq 300); do
  # `next`: each request its own options (a config file's options are otherwise shared)
  ((i > 1)) && echo next >>"$WORK/parallel.cfg"
  if ((i % 2)); then
    body="{\"model\": \"m\", \"max_tokens\": 8, \"messages\": [{\"role\": \"user\", \"content\": \"{\\\"n\\\": $i}\"}], \"tools\": [{\"name\": \"t$i\", \"input_schema\": {\"type\": \"object\"}}]}"
    printf 'url = "%s/v1/messages"\nheader = "x-api-key: k"\nheader = "anthropic-version: 2023-06-01"\n' "$BASE" >>"$WORK/parallel.cfg"
  else
    body="{\"model\": \"m\", \"messages\": [{\"role\": \"user\", \"content\": \"{\\\"n\\\": $i}\"}], \"tools\": [{\"type\": \"function\", \"function\": {\"name\": \"t$i\"}}]}"
    printf 'url = "%s/v1/chat/completions"\nheader = "Authorization: Bearer k"\n' "$BASE" >>"$WORK/parallel.cfg"
  fi
  printf '%s' "$body" >"$WORK/req.$i"
  printf 'header = "Content-Type: application/json"\nheader = "Idempotency-Key: k-%d"\ndata-binary = "@%s"\noutput = "%s"\nwrite-out = "%%{http_code}\\n"\nsilent\nshow-error\n' \
    "$i" "$WORK/req.$i" "$WORK/resp.$i" >>"$WORK/parallel.cfg"
done
codes="$(curl -sS --parallel --parallel-immediate --parallel-max 300 --config "$WORK/parallel.cfg" 2>"$WORK/curl.err")"
n200="$(grep -c '^200$' <<<"$codes")"
[[ "$n200" == 300 ]]; check "300 requests at once (latency 1000 ms + jitter): all answered 200" $? "$n200 were 200; $(sort <<<"$codes" | uniq -c | tr '\n' ' ') $(head -3 "$WORK/curl.err")"
wrong=0
for i in $(seq 300); do
  if ((i % 2)); then
    jq -e --arg t "t$i" --argjson n "$i" '.content[0].name == $t and .content[0].input == {n: $n}' "$WORK/resp.$i" >/dev/null 2>&1 || wrong=$((wrong + 1))
  else
    jq -e --arg t "t$i" --argjson n "$i" '.choices[0].message.tool_calls[0].function.name == $t
        and (.choices[0].message.tool_calls[0].function.arguments | fromjson) == {n: $n}' "$WORK/resp.$i" >/dev/null 2>&1 || wrong=$((wrong + 1))
  fi
done
[[ "$wrong" == 0 ]]; check "... each answer is the right one for its own request (its tool, its arguments)" $? "$wrong wrong"
get /stats
jqt '.requests == 300 and .by_api.anthropic == 150 and .by_api.openai == 150 and .in_flight == 0
     and .idempotency_keys == 300 and .duplicates == 0 and .errors == 0'
check "... stats: 300 requests, 150 per API, 0 duplicates, 0 errors, none left in flight" $? "$BODY_OUT"
note "peak in flight with curl --parallel-max 300: $(jq .peak_in_flight <<<"$BODY_OUT")"

# --- 1,600 held at once (python3: curl runs at most 300 in parallel) ------------------------------
if command -v python3 >/dev/null; then
  stop; check "SIGTERM: exit 0" $? ""
  start --latency-ms 4000
  result="$(python3 "$(dirname "$0")/mock_model_flood.py" "${BASE#http://}")"
  jq -e '.ok == 1600' >/dev/null <<<"$result"; check "1,600 requests at once, held 4 s each on timers: all answered 200" $? "$result"
  get /stats
  if jq -e '.all_sent_first' >/dev/null <<<"$result"; then
    # Every request was sent before any answer came back: all were held at once.
    jqt '.peak_in_flight == 1600 and .in_flight == 0'
    check "... every one was sent before the first answer, and the mock held all 1,600 at once (peak_in_flight)" $? "$BODY_OUT"
  else
    note "answers began before all 1,600 were sent (a slow client); peak_in_flight $(jq .peak_in_flight <<<"$BODY_OUT")"
  fi
else
  note "python3 not found: the 1,600-in-flight check is skipped"
fi

# --- SIGTERM while an answer is held ----------------------------------------------------------
stop; check "SIGTERM: exit 0" $? ""
start --latency-ms 3000
curl -sS -o "$WORK/held" -w '%{http_code}' -X POST "$BASE/v1/chat/completions" "${OAI[@]}" \
     -H 'Content-Type: application/json' --data-binary "$SMALL_O" >"$WORK/held.code" 2>/dev/null &
CURL_PID=$!
for _ in $(seq 100); do
  get /stats
  jqt '.in_flight == 1' && break
  sleep 0.02
done
if jqt '.in_flight == 1'; then
  stop; status=$?
  wait "$CURL_PID"
  [[ "$(cat "$WORK/held.code")" == 200 ]] && jq -e '.choices[0].message.content == "done: 0 tool call(s)"' "$WORK/held" >/dev/null
  check "SIGTERM while an answer is held: the answer still goes out (200)" $? "$(cat "$WORK/held.code") $(cat "$WORK/held")"
  [[ "$status" == 0 ]]; check "... and then exit 0" $? "status $status"
else
  wait "$CURL_PID"
  note "the held request was not seen in flight; SIGTERM-while-held not checked"
  stop
fi

# --- --api-key and --script -------------------------------------------------------------------
cat >"$WORK/script.json" <<'JSON'
[{"tool_calls": [{"name": "lookup", "arguments": {"id": 7}}, {"name": "notify"}]},
 {"text": "scripted: finished"}]
JSON
start --api-key sk-right --script "$WORK/script.json"
post /v1/messages "$SMALL_A" -H 'x-api-key: sk-wrong' -H 'anthropic-version: 2023-06-01'
[[ "$STATUS" == 401 ]] && jqt '.error.type == "authentication_error"'; check "--api-key: a wrong x-api-key is 401" $? "$STATUS $BODY_OUT"
post /v1/chat/completions "$SMALL_O" -H 'Authorization: Bearer sk-wrong'
[[ "$STATUS" == 401 ]] && jqt '.error.code == "invalid_api_key"'; check "--api-key: a wrong Bearer key is 401 invalid_api_key" $? "$STATUS $BODY_OUT"
post /v1/chat/completions "$SMALL_O" -H 'Authorization: Bearer sk-right'
[[ "$STATUS" == 200 ]] && jqt '[.choices[0].message.tool_calls[].function | {name, arguments: (.arguments | fromjson)}]
      == [{"name": "lookup", "arguments": {"id": 7}}, {"name": "notify", "arguments": {}}]'
check "--api-key: the right key is answered; --script: first entry (two tool calls)" $? "$STATUS $BODY_OUT"
REQ="$(jq -c --argjson answer "$BODY_OUT" '.messages += [$answer.choices[0].message]
        + [$answer.choices[0].message.tool_calls[] | {role: "tool", tool_call_id: .id, content: "ok"}]' <<<"$SMALL_O")"
post /v1/chat/completions "$REQ" -H 'Authorization: Bearer sk-right'
jqt '.choices[0].message.content == "scripted: finished"'; check "--script: second entry (text)" $? "$BODY_OUT"
post /v1/messages "$SMALL_A" -H 'x-api-key: sk-right' -H 'anthropic-version: 2023-06-01'
jqt '[.content[] | .name] == ["lookup", "notify"] and (.content[0].id != .content[1].id)'
check "--script: each conversation starts at the first entry (Anthropic too), distinct tool_use ids" $? "$BODY_OUT"
stop; check "SIGTERM: exit 0" $? ""

# --- options ------------------------------------------------------------------------------
echo '[{"tool_calls": [{"name": "x", "arguments": [1]}]}]' >"$WORK/bad-script.json"
"$VOLENT" mock-model --listen 127.0.0.1:0 --script "$WORK/bad-script.json" 2>"$WORK/err"; status=$?
[[ "$status" == 2 ]] && grep -q "entry 0: tool_calls\[0\].arguments must be a JSON object" "$WORK/err"
check "a bad script: exit 2 naming the entry and field" $? "status $status: $(cat "$WORK/err")"
"$VOLENT" mock-model --script "$WORK/none.json" 2>"$WORK/err"; status=$?
[[ "$status" == 2 ]] && grep -q "cannot read the script" "$WORK/err"; check "a missing script: exit 2" $? "status $status"
for args in "--latency-ms -1" "--latency-ms x" "--jitter-ms 700000" "--max-connections 0" "--listen nowhere" "--frobnicate 1" "--latency-ms"; do
  # shellcheck disable=SC2086
  "$VOLENT" mock-model $args 2>"$WORK/err"; status=$?
  [[ "$status" == 2 ]] && grep -q "^usage: volent mock-model" "$WORK/err"
  check "bad option '$args': exit 2 with the usage" $? "status $status: $(head -1 "$WORK/err")"
done
"$VOLENT" mock-model --listen 203.0.113.1:0 2>"$WORK/err"; status=$?
[[ "$status" == 2 ]] && grep -q "cannot listen on" "$WORK/err"; check "an address not of this machine: exit 2, says so" $? "status $status: $(cat "$WORK/err")"

err_text="$(cat "$WORK"/stderr.*)"
! grep -qiE 'exception|what\(\)|terminate called|sanitizer|segmentation' <<<"$err_text"
check "no run printed an internal failure on stderr" $? "$(head -5 <<<"$err_text")"
echo "mock_model: $passed passed, $failed failed"
((failed == 0))
