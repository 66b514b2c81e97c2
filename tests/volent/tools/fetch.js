// A JavaScript tool that makes one request through the volent global
// (tests/volent/tool_http_test.py): its result is the answer.
const args = volent.arguments();
volent.respond(volent.httpRequest({ url: args.url }));
