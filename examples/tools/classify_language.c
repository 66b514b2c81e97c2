// An example tool for Volent's sealed tool calls (docs/tools.md): which of
// English, French, German or Spanish a text is most likely written in, by
// counting a few very common words of each.
//
// Interface (every wasm tool's): the arguments on stdin as one JSON object,
// the result on stdout as one JSON value, exit status 0. This one takes
//   {"text": STRING}
// and answers
//   {"language": "en" | "fr" | "de" | "es" | "unknown", "score": INTEGER}
// Escapes in the string are read as the characters they stand for only for
// \" and \\; a word never contains an escape in practice.
//
// Build: clang-14 --target=wasm32-wasi --sysroot=SYSROOT -O2 -o classify_language.wasm classify_language.c
#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char* const kLanguages[] = {"en", "fr", "de", "es"};
static const char* const kWords[][8] = {
    {"the", "and", "is", "of", "to", "with", "for", "not"},
    {"le", "la", "et", "est", "les", "des", "pas", "pour"},
    {"der", "die", "und", "ist", "nicht", "das", "mit", "ein"},
    {"el", "los", "y", "es", "las", "del", "con", "para"},
};

int main(void) {
  static char input[65536];
  size_t n = fread(input, 1, sizeof input - 1, stdin);
  input[n] = '\0';
  const char* text = strstr(input, "\"text\"");
  if (text) text = strchr(text + 6, ':');
  if (text) text = strchr(text, '"');
  if (!text) {
    fprintf(stderr, "classify_language: needs {\"text\": STRING}\n");
    return 2;
  }
  text++;

  int score[4] = {0, 0, 0, 0};
  char word[32];
  size_t len = 0;
  for (const char* p = text;; ++p) {
    const int end_of_text = *p == '\0' || (*p == '"' && p[-1] != '\\');
    if (!end_of_text && isalpha((unsigned char)*p)) {
      if (len + 1 < sizeof word) word[len++] = (char)tolower((unsigned char)*p);
      continue;
    }
    word[len] = '\0';
    for (int l = 0; l < 4 && len > 0; ++l) {
      for (int w = 0; w < 8; ++w) score[l] += strcmp(word, kWords[l][w]) == 0;
    }
    len = 0;
    if (end_of_text) break;
  }
  int best = 0;
  for (int l = 1; l < 4; ++l) best = score[l] > score[best] ? l : best;
  printf("{\"language\": \"%s\", \"score\": %d}\n", score[best] ? kLanguages[best] : "unknown", score[best]);
  return 0;
}
