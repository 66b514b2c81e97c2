// Drives the tool capability import (wit/volent-tool.wit): each line of
// stdin is sent verbatim as one request, and each answer is printed on a
// line of its own. Arguments test the edges: "outside" passes a request
// that lies outside the memory, "short N" reads only the first N bytes of
// each answer.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((import_module("volent:tool/http@0.1.0"), import_name("request")))
int32_t http_request(const char* request, int32_t length);
__attribute__((import_module("volent:tool/http@0.1.0"), import_name("answer")))
int32_t http_answer(char* buffer, int32_t length);

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "outside") == 0) {
    http_request((const char*)(uintptr_t)0xFFFFFF00u, 0x1000);
    return 0;
  }
  int32_t limit = argc > 2 && strcmp(argv[1], "short") == 0 ? atoi(argv[2]) : -1;
  char line[4096];
  while (fgets(line, sizeof line, stdin) != NULL) {
    size_t n = strcspn(line, "\n");
    int32_t length = http_request(line, (int32_t)n);
    int32_t want = limit >= 0 && limit < length ? limit : length;
    char* answer = malloc((size_t)want + 1);
    int32_t got = http_answer(answer, want);
    answer[got] = '\0';
    printf("%d %s\n", length, answer);
    free(answer);
  }
  return 0;
}
