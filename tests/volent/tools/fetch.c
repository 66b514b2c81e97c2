// A tool that makes one HTTP request through its capability import
// (wit/volent-tool.wit): its arguments are the request, its result the
// answer, whatever it is (tests/volent/tool_http_test.py).
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((import_module("volent:tool/http@0.1.0"), import_name("request")))
int32_t http_request(const char* request, int32_t length);
__attribute__((import_module("volent:tool/http@0.1.0"), import_name("answer")))
int32_t http_answer(char* buffer, int32_t length);

int main(void) {
  static char request[65536];
  size_t length = fread(request, 1, sizeof request, stdin);
  int32_t size = http_request(request, (int32_t)length);
  char* answer = malloc((size_t)size);
  if (answer == NULL) return 2;
  fwrite(answer, 1, (size_t)http_answer(answer, size), stdout);
  putchar('\n');
  return 0;
}
