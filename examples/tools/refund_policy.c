// An example tool for Volent's sealed tool calls (docs/tools.md): the
// refundable amount of an order under a simple policy.
//
// The interface of every wasm tool: the arguments arrive on stdin as one JSON
// object, the result goes to stdout as one JSON value, exit status 0; an
// error is a message on stderr and a non-zero exit status. This one takes
//   {"amount_cents": INTEGER, "days_since_delivery": INTEGER, "opened": BOOLEAN}
// and answers
//   {"refundable_cents": INTEGER, "rule": "full" | "restocking-fee" | "expired"}
//
// Build: clang-14 --target=wasm32-wasi --sysroot=SYSROOT -O2 -o refund_policy.wasm refund_policy.c
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The text after "KEY": in `json`, or NULL. Enough for a flat object of
// numbers and booleans, which is all this tool takes.
static const char* value_of(const char* json, const char* key) {
  char quoted[64];
  snprintf(quoted, sizeof quoted, "\"%s\"", key);
  const char* at = strstr(json, quoted);
  if (!at) return NULL;
  at += strlen(quoted);
  while (isspace((unsigned char)*at)) at++;
  if (*at != ':') return NULL;
  at++;
  while (isspace((unsigned char)*at)) at++;
  return at;
}

static int integer_of(const char* json, const char* key, long long* out) {
  const char* v = value_of(json, key);
  if (!v || !(isdigit((unsigned char)*v) || *v == '-')) return 0;
  char* end;
  *out = strtoll(v, &end, 10);
  return end != v;
}

int main(void) {
  static char input[65536];
  size_t n = fread(input, 1, sizeof input - 1, stdin);
  input[n] = '\0';

  long long amount, days;
  if (!integer_of(input, "amount_cents", &amount) || !integer_of(input, "days_since_delivery", &days)) {
    fprintf(stderr, "refund_policy: needs integer amount_cents and days_since_delivery, got %s\n", input);
    return 2;
  }
  if (amount < 0 || days < 0) {
    fprintf(stderr, "refund_policy: amount_cents and days_since_delivery must not be negative\n");
    return 2;
  }
  const char* opened = value_of(input, "opened");
  const int is_opened = opened && strncmp(opened, "true", 4) == 0;

  long long refundable = amount;
  const char* rule = "full";
  if (days > 30) {
    refundable = 0;
    rule = "expired";
  } else if (is_opened) {
    refundable = amount - amount / 10;  // a 10% restocking fee
    rule = "restocking-fee";
  }
  printf("{\"refundable_cents\": %lld, \"rule\": \"%s\"}\n", refundable, rule);
  return 0;
}
