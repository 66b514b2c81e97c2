// The global `volent`: what a Volent tool written in JavaScript needs
// (docs/tools.md, wit/volent-tool.wit).
//
//   const args = volent.arguments();                          // the call's arguments
//   const page = volent.httpRequest({ url: args.url });       // through the node's egress gate
//   volent.respond({ status: page.status });                  // the call's result
//
// Embedded in js.wasm and evaluated in ampoule_init like web_globals.js (so
// after it: atob and TextDecoder exist), with `native` holding main.c's
// httpRequest (the two host imports) and readStdin. Nothing here reads stdin
// or sends anything until a program calls it.
(function installVolent(native) {
  "use strict";

  // Captured now, so a program replacing the globals cannot change what these do.
  const { atob, print } = globalThis;
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  const { stringify, parse } = JSON;

  // An HTTP request that got no response: `kind` is why ("denied", "not-sent",
  // "failed", "invalid", "limit" or "unavailable"), `reason` says it for a person.
  class VolentHttpError extends Error {
    constructor(kind, reason) {
      super(`${kind}: ${reason}`);
      this.kind = kind;
      this.reason = reason;
    }
  }
  Object.defineProperty(VolentHttpError.prototype, "name", {
    value: "VolentHttpError", writable: true, configurable: true,
  });

  function requestBody(body, headers) {
    if (body === undefined || body === null) return undefined;
    if (typeof body === "string") return body;
    if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
      try {
        return utf8.decode(body);
      } catch {
        throw new TypeError("volent.httpRequest: the body is not UTF-8 text; a request body must be text");
      }
    }
    if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) {
      headers["Content-Type"] = "application/json";
    }
    return stringify(body);
  }

  let args;
  let argsRead = false;
  const volent = {
    // The call's arguments, the JSON object on stdin (read once, then the same object).
    arguments() {
      if (!argsRead) {
        args = parse(native.readStdin());
        argsRead = true;
      }
      return args;
    },

    // Sends one HTTP request through the node's egress gate: {method = "GET",
    // url, headers: {name: value}, body}. A body that is not a string is sent
    // as UTF-8 text (ArrayBuffer, typed array) or as JSON (anything else,
    // with content-type application/json unless headers name one). Returns
    // {status, headers: [[name, value], ...], body}, body a Uint8Array when
    // the response is not UTF-8 text; throws a volent.HttpError when there is
    // no response (a 4xx or 5xx status is a response).
    httpRequest({ method = "GET", url, headers = {}, body } = {}) {
      const request = { method, url };
      const names = {};
      for (const name of Object.keys(headers ?? {})) names[name] = String(headers[name]);
      body = requestBody(body, names);
      if (Object.keys(names).length) request.headers = names;
      if (body !== undefined) request.body = body;
      const answer = parse(native.httpRequest(stringify(request)));
      if ("error" in answer) throw new VolentHttpError(answer.error, answer.reason ?? "");
      return {
        status: answer.status,
        headers: answer.headers ?? [],
        body: "body_base64" in answer ? Uint8Array.from(atob(answer.body_base64), (c) => c.charCodeAt(0))
                                      : answer.body ?? "",
      };
    },

    // Writes VALUE to stdout as one line of JSON: the call's result (at most 64 KiB).
    respond(value) {
      const text = stringify(value);
      if (text === undefined) throw new TypeError(`volent.respond: ${typeof value} is not a JSON value`);
      print(text);
    },

    HttpError: VolentHttpError,
  };
  Object.defineProperty(globalThis, "volent", { value: volent, writable: true, configurable: true });
})
