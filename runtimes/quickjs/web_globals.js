// The web platform globals of js.wasm that are written in JavaScript: console,
// DOMException, TextEncoder/TextDecoder, atob/btoa, URL/URLSearchParams,
// structuredClone and crypto (docs/runtimes.md lists them, and what is
// deliberately absent). The timers, queueMicrotask and the event loop are C,
// in main.c.
//
// scripts/build-runtimes.sh embeds this file in js.wasm as a byte array, and
// main.c evaluates it once in ampoule_init, before the snapshot
// (docs/decisions/0031-js-web-globals.md): the value of the script is the
// function below, called with `native`, the few C helpers it needs, which stay
// private to it. Nothing here may read the clock or the random source at
// install time: whatever runs here is in the snapshot.
//
// The behaviour follows the WHATWG standards (Encoding, URL, HTML's structured
// clone, WebIDL) and, where they leave room, what Node prints, because the
// corpus compares our output with Node's byte for byte.
(function installWebGlobals(native) {
  "use strict";

  // Built-ins that structuredClone and the encodings rely on, captured now so
  // that a program replacing them later cannot change what they do; the rest
  // uses the built-ins of the moment, as any library would.
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, keys: objectKeys } = Object;
  const { fromCharCode, fromCodePoint } = String;
  const { isView } = ArrayBuffer;
  const arrayBufferSlice = ArrayBuffer.prototype.slice;
  const typedArrayProto = getPrototypeOf(Uint8Array.prototype);
  const typedArrayTag = getOwnPropertyDescriptor(typedArrayProto, Symbol.toStringTag).get;
  const dataViewByteLength = getOwnPropertyDescriptor(DataView.prototype, "byteLength").get;
  const dateGetTime = Date.prototype.getTime;
  const regExpSource = getOwnPropertyDescriptor(RegExp.prototype, "source").get;
  const regExpFlags = getOwnPropertyDescriptor(RegExp.prototype, "flags").get;
  const mapEntries = Map.prototype.entries;
  const setValues = Set.prototype.values;

  // Globals as WebIDL defines them: operations (functions) and namespaces are
  // enumerable, interfaces (classes) are not; all are writable and configurable.
  function defineGlobal(name, value, enumerable) {
    defineProperty(globalThis, name, { value, writable: true, enumerable, configurable: true });
  }
  function setToStringTag(target, tag) {
    defineProperty(target, Symbol.toStringTag, { value: tag, configurable: true });
  }
  // Methods of a class or namespace are not enumerable in QuickJS's classes
  // already; a namespace object needs it said.
  function defineMethods(target, methods, enumerable) {
    for (const name of objectKeys(methods)) {
      defineProperty(target, name, { value: methods[name], writable: true, enumerable, configurable: true });
    }
  }
  function requireArguments(count, needed, what) {
    if (count < needed) {
      throw new TypeError(`${what}: ${needed} argument${needed > 1 ? "s" : ""} required, but only ${count} present`);
    }
  }
  // WebIDL's USVString: a string in which a lone surrogate becomes U+FFFD.
  function toUSVString(value) {
    return String(value).toWellFormed();
  }

  // --- DOMException ---------------------------------------------------------
  const legacyCodes = {
    IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
    NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
    TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
    QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
  };
  const legacyConstants = [
    "INDEX_SIZE_ERR", "DOMSTRING_SIZE_ERR", "HIERARCHY_REQUEST_ERR", "WRONG_DOCUMENT_ERR",
    "INVALID_CHARACTER_ERR", "NO_DATA_ALLOWED_ERR", "NO_MODIFICATION_ALLOWED_ERR", "NOT_FOUND_ERR",
    "NOT_SUPPORTED_ERR", "INUSE_ATTRIBUTE_ERR", "INVALID_STATE_ERR", "SYNTAX_ERR",
    "INVALID_MODIFICATION_ERR", "NAMESPACE_ERR", "INVALID_ACCESS_ERR", "VALIDATION_ERR",
    "TYPE_MISMATCH_ERR", "SECURITY_ERR", "NETWORK_ERR", "ABORT_ERR", "URL_MISMATCH_ERR",
    "QUOTA_EXCEEDED_ERR", "TIMEOUT_ERR", "INVALID_NODE_TYPE_ERR", "DATA_CLONE_ERR",
  ];

  class DOMException extends Error {
    #name;
    #code;
    constructor(message = "", options = "Error") {
      super(String(message));
      let name = options;
      if (options !== null && typeof options === "object") {
        name = "name" in options ? options.name : "Error";
        if ("cause" in options) {
          defineProperty(this, "cause", { value: options.cause, writable: true, configurable: true });
        }
      }
      this.#name = String(name);
      this.#code = legacyCodes[this.#name] ?? 0;
    }
    get name() { return this.#name; }
    get code() { return this.#code; }
  }
  legacyConstants.forEach((name, i) => {
    const code = { value: i + 1, enumerable: true };
    defineProperty(DOMException, name, code);
    defineProperty(DOMException.prototype, name, code);
  });
  setToStringTag(DOMException.prototype, "DOMException");
  defineGlobal("DOMException", DOMException, false);

  // --- console --------------------------------------------------------------
  // The methods that print their arguments are C (native.printer, main.c):
  // strings print as they are, numbers and bigints as Node prints them (-0,
  // 10n), anything else as String(value), as QuickJS's print does (so an
  // object is "[object Object]", not Node's util.inspect). When the first of
  // several arguments is a string holding "%", they call format() below for
  // Node's format directives (util.format): %s %d %i %f %j %o %O %c and %%.
  function formatNumber(n) {
    return Object.is(n, -0) ? "-0" : String(n);
  }
  function formatValue(value) {
    switch (typeof value) {
      case "string": return value;
      case "number": return formatNumber(value);
      case "bigint": return `${value}n`;
      default: return String(value);
    }
  }
  function formatDirective(directive, arg) {
    switch (directive) {
      case "s":
        return typeof arg === "number" ? formatNumber(arg) : typeof arg === "bigint" ? `${arg}n` : String(arg);
      case "d":
        return typeof arg === "bigint" ? `${arg}n` : typeof arg === "symbol" ? "NaN" : formatNumber(Number(arg));
      case "i":
        return typeof arg === "bigint" ? `${arg}n` : typeof arg === "symbol" ? "NaN" : formatNumber(parseInt(arg));
      case "f":
        return typeof arg === "symbol" ? "NaN" : formatNumber(parseFloat(arg));
      case "j":
        try {
          return JSON.stringify(arg);
        } catch (e) {
          if (e instanceof TypeError && /circular/i.test(e.message)) return "[Circular]";
          throw e;
        }
      case "o":
      case "O":
        return String(arg);
      case "c":
        return "";
    }
    return undefined;
  }
  function format(...args) {
    let out = "";
    let next = 0;
    const first = args[0];
    if (typeof first === "string" && args.length > 1) {
      let last = 0;
      next = 1;
      for (let i = 0; i < first.length - 1; i++) {
        if (first[i] !== "%") continue;
        const directive = first[++i];
        if (directive === "%") {
          out += first.slice(last, i);
          last = i + 1;
        } else if (next < args.length) {
          const text = formatDirective(directive, args[next]);
          if (text === undefined) continue;
          next++;
          out += first.slice(last, i - 1) + text;
          last = i + 1;
        }
      }
      if (last === 0) {
        next = 0;
        out = "";
      } else {
        out += first.slice(last);
      }
    }
    for (let sep = out === "" && next === 0 ? "" : " "; next < args.length; next++, sep = " ") {
      out += sep + formatValue(args[next]);
    }
    return out;
  }

  native.setConsoleFormat(format);
  const printOut = native.printer(1, "log"), printErr = native.printer(2, "error");
  let groupDepth = 0;
  const counts = new Map();
  const timers = new Map();
  function elapsed(label) {
    const ms = performance.now() - timers.get(label);
    return ms >= 1000 ? `${(ms / 1000).toFixed(3)}s` : `${ms.toFixed(3)}ms`;
  }
  const consoleMethods = {
    log: printOut,
    info: native.printer(1, "info"),
    debug: native.printer(1, "debug"),
    warn: native.printer(2, "warn"),
    error: printErr,
    trace(...args) {
      // The stack without this function's own frame.
      const stack = (new Error().stack ?? "").split("\n").slice(1).join("\n").trimEnd();
      printErr("Trace" + (args.length ? ": " + format(...args) : "") + (stack ? "\n" + stack : ""));
    },
    assert(condition, ...args) {
      if (condition) return;
      if (typeof args[0] === "string") args[0] = "Assertion failed: " + args[0];
      else args.unshift("Assertion failed");
      printErr(...args);
    },
    count(label = "default") {
      label = String(label);
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      printOut(`${label}: ${n}`);
    },
    countReset(label = "default") {
      label = String(label);
      if (counts.has(label)) counts.set(label, 0);
      else printErr(`Count for '${label}' does not exist`);
    },
    group(...args) {
      if (args.length) printOut(...args);
      native.setConsoleIndent(2 * ++groupDepth);
    },
    groupCollapsed(...args) {
      if (args.length) printOut(...args);
      native.setConsoleIndent(2 * ++groupDepth);
    },
    groupEnd() {
      if (groupDepth > 0) native.setConsoleIndent(2 * --groupDepth);
    },
    // Timings are on the virtual clock (performance.now()), so they are
    // deterministic here but not the same as Node's.
    time(label = "default") {
      label = String(label);
      if (timers.has(label)) printErr(`Warning: Label '${label}' already exists for console.time()`);
      else timers.set(label, performance.now());
    },
    timeLog(label = "default", ...args) {
      label = String(label);
      if (!timers.has(label)) return printErr(`Warning: No such label '${label}' for console.timeLog()`);
      printOut(`${label}: ${elapsed(label)}`, ...args);
    },
    timeEnd(label = "default") {
      label = String(label);
      if (!timers.has(label)) return printErr(`Warning: No such label '${label}' for console.timeEnd()`);
      printOut(`${label}: ${elapsed(label)}`);
      timers.delete(label);
    },
  };
  const consoleObject = {};
  defineMethods(consoleObject, consoleMethods, true);
  setToStringTag(consoleObject, "console");
  defineGlobal("console", consoleObject, false);

  // --- TextEncoder / TextDecoder ---------------------------------------------
  // UTF-8 only; the conversions are C (native.utf8*), following the Encoding
  // standard: a lone surrogate encodes as U+FFFD, and each maximal invalid
  // subsequence decodes as one U+FFFD.
  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(input = "") {
      return new Uint8Array(native.utf8Encode(String(input)));
    }
    encodeInto(source, destination) {
      requireArguments(arguments.length, 2, "TextEncoder.encodeInto");
      if (!(destination instanceof Uint8Array)) {
        throw new TypeError("TextEncoder.encodeInto: the destination must be a Uint8Array");
      }
      const [read, written] = native.utf8EncodeInto(String(source), destination);
      return { read, written };
    }
  }
  setToStringTag(TextEncoder.prototype, "TextEncoder");
  defineGlobal("TextEncoder", TextEncoder, false);

  const utf8Labels = ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"];
  function bytesOf(input, what) {
    if (input instanceof ArrayBuffer) return new Uint8Array(input);
    if (typeof SharedArrayBuffer === "function" && input instanceof SharedArrayBuffer) return new Uint8Array(input);
    if (isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    throw new TypeError(`${what}: the input must be an ArrayBuffer, a SharedArrayBuffer or an ArrayBufferView`);
  }

  class TextDecoder {
    #fatal;
    #ignoreBOM;
    #bomSeen = false;
    #pending = null; // the bytes of an incomplete sequence kept by {stream: true}
    constructor(label = "utf-8", options = {}) {
      const name = String(label).replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, "").toLowerCase();
      if (!utf8Labels.includes(name)) {
        throw new RangeError(`TextDecoder: the "${label}" encoding is not supported (only utf-8 is)`);
      }
      options = options ?? {};
      this.#fatal = Boolean(options.fatal);
      this.#ignoreBOM = Boolean(options.ignoreBOM);
    }
    get encoding() { return "utf-8"; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input = undefined, options = {}) {
      let bytes = input === undefined ? new Uint8Array(0) : bytesOf(input, "TextDecoder.decode");
      const stream = Boolean((options ?? {}).stream);
      if (this.#pending) {
        const joined = new Uint8Array(this.#pending.length + bytes.length);
        joined.set(this.#pending);
        joined.set(bytes, this.#pending.length);
        bytes = joined;
        this.#pending = null;
      }
      const result = native.utf8Decode(bytes, this.#fatal, stream);
      if (result === null) {
        this.#bomSeen = false;
        throw new TypeError("The encoded data was not valid for encoding utf-8");
      }
      let [text, used] = result;
      if (used < bytes.length) this.#pending = bytes.slice(used);
      if (!this.#bomSeen && text.length > 0) {
        this.#bomSeen = true;
        if (!this.#ignoreBOM && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      if (!stream) this.#bomSeen = false;
      return text;
    }
  }
  setToStringTag(TextDecoder.prototype, "TextDecoder");
  defineGlobal("TextDecoder", TextDecoder, false);

  // --- atob / btoa (forgiving base64, HTML standard) --------------------------
  const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const base64Values = new Map([...base64Alphabet].map((c, i) => [c, i]));

  function btoa(data) {
    requireArguments(arguments.length, 1, "btoa");
    data = String(data);
    let out = "";
    for (let i = 0; i < data.length; i += 3) {
      const a = data.charCodeAt(i), b = data.charCodeAt(i + 1), c = data.charCodeAt(i + 2);
      if (a > 0xff || b > 0xff || c > 0xff) throw new DOMException("Invalid character", "InvalidCharacterError");
      const n = (a << 16) | ((b || 0) << 8) | (c || 0);
      out += base64Alphabet[n >> 18] + base64Alphabet[(n >> 12) & 63] +
        (i + 1 < data.length ? base64Alphabet[(n >> 6) & 63] : "=") +
        (i + 2 < data.length ? base64Alphabet[n & 63] : "=");
    }
    return out;
  }

  // The errors say what Node's do: a character outside the alphabet or a
  // misplaced "=" is an "Invalid character"; a length that leaves one
  // character over is "not correctly encoded".
  function atob(data) {
    requireArguments(arguments.length, 1, "atob");
    let text = String(data).replace(/[\t\n\f\r ]/g, "");
    const padding = /^[A-Za-z0-9+/]*(=*)$/.exec(text);
    if (padding === null || padding[1].length > 2) throw new DOMException("Invalid character", "InvalidCharacterError");
    if (text.length % 4 === 0) {
      text = text.slice(0, text.length - padding[1].length);
    } else if (padding[1] !== "") {
      throw new DOMException("Invalid character", "InvalidCharacterError");
    }
    if (text.length % 4 === 1) {
      throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
    }
    let out = "", buffer = 0, bits = 0;
    for (let i = 0; i < text.length; i++) {
      buffer = ((buffer << 6) | base64Values.get(text[i])) & 0xffff; // at most 13 bits are ever pending
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += fromCharCode((buffer >> bits) & 0xff);
      }
    }
    return out;
  }
  defineGlobal("btoa", btoa, true);
  defineGlobal("atob", atob, true);

  // --- URL (WHATWG URL standard) ----------------------------------------------
  // A URL record: { scheme, username, password, host, port, path, query,
  // fragment }. host is null or its serialisation ("" is the empty host);
  // port is null or a number; path is an array of segments, or a string for an
  // opaque path ("mailto:x"); query and fragment are null or strings.
  const specialPorts = { "ftp": 21, "file": null, "http": 80, "https": 443, "ws": 80, "wss": 443 };
  const isSpecialScheme = (scheme) => Object.hasOwn(specialPorts, scheme);
  const defaultPort = (scheme) => (isSpecialScheme(scheme) ? specialPorts[scheme] : null);

  // Percent-encode sets: each holds the C0 controls, everything above U+007E
  // and the ASCII characters given. `any` finds a character of the set, so a
  // string with none (the common case) is returned as it is.
  function encodeSet(ascii) {
    const codes = new Set([...ascii].map((ch) => ch.charCodeAt(0)));
    const listed = [...codes].map((c) => "\\x" + c.toString(16).padStart(2, "0")).join("");
    return { has: (c) => c < 0x20 || c > 0x7e || codes.has(c), any: new RegExp(`[\\x00-\\x1f\\x7f-\\uffff${listed}]`) };
  }
  const c0ControlSet = encodeSet("");
  const fragmentSet = encodeSet(" \"<>`");
  const querySet = encodeSet(" \"#<>");
  const specialQuerySet = encodeSet(" \"#<>'");
  const pathSet = encodeSet(" \"#<>?`{}");
  const userinfoSet = encodeSet(" \"#<>?`{}/:;=@[\\]^|");
  const formSet = encodeSet(" \"#<>?`{}/:;=@[\\]^|$%&+,!'()~"); // the component set and !'()~

  const hex = "0123456789ABCDEF";
  function percentEncodeCodePoint(cp, set) {
    if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate, as UTF-8 encoding makes it
    if (!set.has(cp)) return fromCodePoint(cp);
    let bytes;
    if (cp < 0x80) bytes = [cp];
    else if (cp < 0x800) bytes = [0xc0 | (cp >> 6), 0x80 | (cp & 63)];
    else if (cp < 0x10000) bytes = [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
    else bytes = [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
    let out = "";
    for (const b of bytes) out += "%" + hex[b >> 4] + hex[b & 15];
    return out;
  }
  function percentEncodeString(string, set, spaceAsPlus = false) {
    if (!set.any.test(string)) return string;
    let out = "";
    for (const ch of string) {
      const cp = ch.codePointAt(0);
      out += spaceAsPlus && cp === 0x20 ? "+" : percentEncodeCodePoint(cp, set);
    }
    return out;
  }
  // The code points of a string; a lone surrogate stands for U+FFFD.
  function codePoints(string) {
    const out = [];
    for (const ch of string) {
      const cp = ch.codePointAt(0);
      out.push(cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp);
    }
    return out;
  }
  const isHexDigit = (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
  // Percent-decodes the UTF-8 bytes of STRING and decodes them as UTF-8.
  function percentDecode(string) {
    if (!string.includes("%")) return string;
    const bytes = new Uint8Array(native.utf8Encode(string));
    const out = new Uint8Array(bytes.length);
    let n = 0;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i];
      if (b === 0x25 && i + 2 < bytes.length && isHexDigit(bytes[i + 1]) && isHexDigit(bytes[i + 2])) {
        out[n++] = parseInt(fromCharCode(bytes[i + 1], bytes[i + 2]), 16);
        i += 2;
      } else {
        out[n++] = b;
      }
    }
    return native.utf8Decode(out.subarray(0, n), false, false)[0];
  }

  // Hosts.
  // Forbidden domain code points: the forbidden host code points (the
  // opaque host check below), the C0 controls, space, "%" and DEL.
  const forbiddenInDomain = /[\x00-\x20#%/:<>?@[\\\]^|\x7f]/;

  function parseIPv4Number(text) {
    if (text === "") return null;
    let radix = 10;
    if (/^0[xX]/.test(text)) {
      text = text.slice(2);
      radix = 16;
    } else if (text.length > 1 && text[0] === "0") {
      text = text.slice(1);
      radix = 8;
    }
    if (text === "") return 0;
    const valid = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
    if (!valid.test(text)) return null;
    return parseInt(text, radix);
  }
  function endsInANumber(text) {
    // A number's last character is a digit, a hex digit or the x of "0x".
    if (!/[0-9a-fA-FxX]\.?$/.test(text)) return false;
    const parts = text.split(".");
    if (parts[parts.length - 1] === "") {
      if (parts.length === 1) return false;
      parts.pop();
    }
    const last = parts[parts.length - 1];
    return /^[0-9]+$/.test(last) || parseIPv4Number(last) !== null;
  }
  function parseIPv4(text) {
    const parts = text.split(".");
    if (parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
    if (parts.length > 4) return null;
    const numbers = [];
    for (const part of parts) {
      const n = parseIPv4Number(part);
      if (n === null) return null;
      numbers.push(n);
    }
    const last = numbers.pop();
    if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
    let address = last;
    numbers.forEach((n, i) => { address += n * 256 ** (3 - i); });
    return [address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255].join(".");
  }

  function parseIPv6(text) {
    const cps = codePoints(text);
    const pieces = [0, 0, 0, 0, 0, 0, 0, 0];
    let piece = 0, compress = null, p = 0;
    const hexValue = (c) => parseInt(fromCodePoint(c), 16);
    const isDigit = (c) => c >= 0x30 && c <= 0x39;
    if (cps[0] === 0x3a) {
      if (cps[1] !== 0x3a) return null;
      p = 2;
      compress = ++piece;
    }
    while (p < cps.length) {
      if (piece === 8) return null;
      if (cps[p] === 0x3a) {
        if (compress !== null) return null;
        p++;
        compress = ++piece;
        continue;
      }
      let value = 0, length = 0;
      while (length < 4 && p < cps.length && isHexDigit(cps[p])) {
        value = value * 16 + hexValue(cps[p]);
        p++;
        length++;
      }
      if (cps[p] === 0x2e) {
        if (length === 0) return null;
        p -= length;
        if (piece > 6) return null;
        let seen = 0;
        while (p < cps.length) {
          let v4 = null;
          if (seen > 0) {
            if (cps[p] === 0x2e && seen < 4) p++;
            else return null;
          }
          if (!isDigit(cps[p])) return null;
          while (isDigit(cps[p])) {
            const n = cps[p] - 0x30;
            if (v4 === null) v4 = n;
            else if (v4 === 0) return null;
            else v4 = v4 * 10 + n;
            if (v4 > 255) return null;
            p++;
          }
          pieces[piece] = pieces[piece] * 0x100 + v4;
          seen++;
          if (seen === 2 || seen === 4) piece++;
        }
        if (seen !== 4) return null;
        break;
      } else if (cps[p] === 0x3a) {
        p++;
        if (p >= cps.length) return null;
      } else if (p < cps.length) {
        return null;
      }
      pieces[piece++] = value;
    }
    if (compress !== null) {
      let swaps = piece - compress;
      piece = 7;
      while (piece !== 0 && swaps > 0) {
        const t = pieces[compress + swaps - 1];
        pieces[compress + swaps - 1] = pieces[piece];
        pieces[piece] = t;
        piece--;
        swaps--;
      }
    } else if (piece !== 8) {
      return null;
    }
    return pieces;
  }
  function serializeIPv6(pieces) {
    // The first longest run of two or more zero pieces is written "::".
    let best = -1, bestLength = 1;
    for (let i = 0; i < 8;) {
      let j = i;
      while (j < 8 && pieces[j] === 0) j++;
      if (j - i > bestLength) {
        best = i;
        bestLength = j - i;
      }
      i = j === i ? i + 1 : j;
    }
    let out = "";
    for (let i = 0; i < 8; i++) {
      if (i === best) {
        out += i === 0 ? "::" : ":";
        i += bestLength - 1;
        continue;
      }
      out += pieces[i].toString(16) + (i < 7 ? ":" : "");
    }
    return out;
  }

  // Punycode (RFC 3492), for host names with non-ASCII labels.
  const punyBase = 36, punyTMin = 1, punyTMax = 26, punySkew = 38, punyDamp = 700;
  function punyAdapt(delta, count, first) {
    delta = first ? Math.floor(delta / punyDamp) : delta >> 1;
    delta += Math.floor(delta / count);
    let k = 0;
    while (delta > ((punyBase - punyTMin) * punyTMax) >> 1) {
      delta = Math.floor(delta / (punyBase - punyTMin));
      k += punyBase;
    }
    return k + Math.floor(((punyBase - punyTMin + 1) * delta) / (delta + punySkew));
  }
  const punyDigit = (d) => fromCharCode(d < 26 ? d + 97 : d + 22);
  function punycodeEncode(label) {
    const cps = codePoints(label);
    let out = cps.filter((c) => c < 0x80).map((c) => fromCharCode(c)).join("");
    const basic = out.length;
    let handled = basic;
    if (basic > 0) out += "-";
    let n = 128, delta = 0, bias = 72;
    while (handled < cps.length) {
      const m = Math.min(...cps.filter((c) => c >= n));
      delta += (m - n) * (handled + 1);
      n = m;
      for (const c of cps) {
        if (c < n) delta++;
        if (c !== n) continue;
        let q = delta;
        for (let k = punyBase; ; k += punyBase) {
          const t = k <= bias ? punyTMin : k >= bias + punyTMax ? punyTMax : k - bias;
          if (q < t) break;
          out += punyDigit(t + ((q - t) % (punyBase - t)));
          q = Math.floor((q - t) / (punyBase - t));
        }
        out += punyDigit(q);
        bias = punyAdapt(delta, handled + 1, handled === basic);
        delta = 0;
        handled++;
      }
      delta++;
      n++;
    }
    return out;
  }
  // Decodes the part of an "xn--" label after the prefix; null if invalid.
  function punycodeDecode(encoded) {
    const dash = encoded.lastIndexOf("-");
    const output = dash > 0 ? codePoints(encoded.slice(0, dash)) : [];
    if (output.some((c) => c >= 0x80)) return null;
    let n = 128, i = 0, bias = 72;
    for (let p = dash > 0 ? dash + 1 : 0; p < encoded.length;) {
      const oldi = i;
      for (let w = 1, k = punyBase; ; k += punyBase) {
        if (p >= encoded.length) return null;
        const c = encoded.charCodeAt(p++);
        const digit = c >= 0x30 && c <= 0x39 ? c - 22 : c >= 0x61 && c <= 0x7a ? c - 0x61 : c >= 0x41 && c <= 0x5a ? c - 0x41 : punyBase;
        if (digit >= punyBase) return null;
        i += digit * w;
        if (i > 0x7fffffff) return null;
        const t = k <= bias ? punyTMin : k >= bias + punyTMax ? punyTMax : k - bias;
        if (digit < t) break;
        w *= punyBase - t;
      }
      bias = punyAdapt(i - oldi, output.length + 1, oldi === 0);
      n += Math.floor(i / (output.length + 1));
      i %= output.length + 1;
      if (n > 0x10ffff) return null;
      output.splice(i++, 0, n);
    }
    return fromCodePoint(...output);
  }
  // UTS #46 processing (nontransitional, no STD3 rules, no DNS length checks),
  // approximated: the mapping is NFKC with each code point lower-cased and the
  // "ignored" code points removed, not the full UTS #46 table; a label is
  // invalid when it holds a control, format, private-use, unassigned or
  // surrogate code point, or starts with a combining mark. No bidi or joiner
  // rules.
  const ignoredInDomains = /[\u00ad\u034f\u180b-\u180d\u180f\u200b\u2060\u2064\ufe00-\ufe0f\ufeff\u{1bca0}-\u{1bca3}\u{e0100}-\u{e01ef}]/gu;
  const invalidInLabel = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\ufffd]|^\p{M}/u;
  function mapDomain(domain) {
    let mapped = "";
    for (const ch of domain.replace(ignoredInDomains, "").normalize("NFKC")) {
      mapped += ch === "\u3002" || ch === "\uff61" ? "." : ch.toLowerCase();
    }
    return mapped.normalize("NFC");
  }
  function domainToASCII(domain) {
    // An ASCII domain with no Punycode label only needs lower-casing.
    if (!/[^\x00-\x7f]|(?:^|\.)xn--/i.test(domain)) return domain === "" ? null : domain.toLowerCase();
    const labels = mapDomain(domain).split(".");
    for (let i = 0; i < labels.length; i++) {
      const label = labels[i];
      if (/^xn--/.test(label)) {
        const decoded = punycodeDecode(label.slice(4));
        if (decoded === null || !/[^\x00-\x7f]/.test(decoded) || mapDomain(decoded) !== decoded ||
            invalidInLabel.test(decoded)) {
          return null;
        }
      } else if (/[^\x00-\x7f]/.test(label)) {
        if (invalidInLabel.test(label)) return null;
        labels[i] = "xn--" + punycodeEncode(label);
      }
    }
    const ascii = labels.join(".");
    return ascii === "" ? null : ascii;
  }

  function parseHost(input, isOpaque) {
    if (input.startsWith("[")) {
      if (!input.endsWith("]")) return null;
      const pieces = parseIPv6(input.slice(1, -1));
      return pieces === null ? null : "[" + serializeIPv6(pieces) + "]";
    }
    if (isOpaque) {
      if (/[\x00\t\n\r #/:<>?@[\\\]^|]/.test(input)) return null;
      return percentEncodeString(input, c0ControlSet);
    }
    const ascii = domainToASCII(percentDecode(input));
    if (ascii === null) return null;
    if (forbiddenInDomain.test(ascii)) return null;
    return endsInANumber(ascii) ? parseIPv4(ascii) : ascii;
  }

  // Paths.
  const isWindowsDriveLetter = (s) => /^[a-zA-Z][:|]$/.test(s);
  const isNormalizedWindowsDriveLetter = (s) => /^[a-zA-Z]:$/.test(s);
  function startsWithWindowsDriveLetter(input, p) {
    return /^[a-zA-Z][:|](?:$|[/\\?#])/.test(input.slice(p, p + 3));
  }
  const isSingleDot = (s) => s === "." || s.toLowerCase() === "%2e";
  const isDoubleDot = (s) => /^(\.|%2e)(\.|%2e)$/i.test(s);
  function shortenPath(url) {
    const path = url.path;
    if (url.scheme === "file" && path.length === 1 && isNormalizedWindowsDriveLetter(path[0])) return;
    path.pop();
  }
  const hasOpaquePath = (url) => typeof url.path === "string";
  const includesCredentials = (url) => url.username !== "" || url.password !== "";
  const cannotHaveCredentialsOrPort = (url) => url.host === null || url.host === "" || url.scheme === "file";

  // The parser's states (numbers, so that its switch is cheap).
  const SCHEME_START = 1, SCHEME = 2, NO_SCHEME = 3, SPECIAL_RELATIVE_OR_AUTHORITY = 4,
    PATH_OR_AUTHORITY = 5, RELATIVE = 6, RELATIVE_SLASH = 7, SPECIAL_AUTHORITY_SLASHES = 8,
    SPECIAL_AUTHORITY_IGNORE_SLASHES = 9, AUTHORITY = 10, HOST = 11, HOSTNAME = 12, PORT = 13, FILE = 14,
    FILE_SLASH = 15, FILE_HOST = 16, PATH_START = 17, PATH = 18, OPAQUE_PATH = 19, QUERY = 20, FRAGMENT = 21;
  const newURLRecord = () => ({
    scheme: "", username: "", password: "", host: null, port: null, path: [], query: null, fragment: null,
  });
  const EOF = -1;
  const isASCIIAlpha = (c) => (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  const isASCIIDigit = (c) => c >= 0x30 && c <= 0x39;

  // Runs of characters that a state only collects, taken at once (sticky
  // regular expressions; the names say which characters end the run).
  const runs = {
    scheme: /[a-zA-Z0-9+\-.]+/y,
    authority: /[^@/?#]+/y, authoritySpecial: /[^@/?#\\]+/y,
    host: /[^:/?#[\]]+/y, hostSpecial: /[^:/?#[\]\\]+/y,
    fileHost: /[^/\\?#]+/y,
    path: /[^/?#]+/y, pathSpecial: /[^/?#\\]+/y, pathOverride: /[^/]+/y, pathOverrideSpecial: /[^/\\]+/y,
    opaquePath: /[^?#]+/y,
    query: /[^#]+/y,
  };
  function runAt(re, input, p) {
    re.lastIndex = p;
    return re.exec(input)[0];
  }

  // The basic URL parser, on UTF-16 code units (the input is a USVString, so
  // surrogates come in pairs, which stay together in every run). Returns the
  // record, or null on failure. With URL (a setter's state override) the
  // record is changed in place: like the standard, a failure part-way leaves
  // what was already set.
  function basicParse(input, base, url = null, override = 0) {
    if (url === null) {
      url = newURLRecord();
      let start = 0, end = input.length;
      while (start < end && input.charCodeAt(start) <= 0x20) start++;
      while (end > start && input.charCodeAt(end - 1) <= 0x20) end--;
      input = input.slice(start, end);
    }
    if (/[\t\n\r]/.test(input)) input = input.replace(/[\t\n\r]/g, "");
    const length = input.length;
    let state = override || SCHEME_START;
    let buffer = "";
    let atSignSeen = false, insideBrackets = false, passwordTokenSeen = false;
    let special = isSpecialScheme(url.scheme);
    const setScheme = (scheme) => {
      url.scheme = scheme;
      special = isSpecialScheme(scheme);
    };
    for (let p = 0; ; p++) {
      const c = p < length ? input.charCodeAt(p) : EOF;
      // The states most characters go through come first.
      switch (state) {
        case PATH: {
          const slash = c === 0x2f || (special && c === 0x5c);
          if (c === EOF || slash || (!override && (c === 0x3f || c === 0x23))) {
            if (isDoubleDot(buffer)) {
              shortenPath(url);
              if (!slash) url.path.push("");
            } else if (isSingleDot(buffer) && !slash) {
              url.path.push("");
            } else if (!isSingleDot(buffer)) {
              if (url.scheme === "file" && url.path.length === 0 && isWindowsDriveLetter(buffer)) {
                buffer = buffer[0] + ":";
              }
              url.path.push(buffer);
            }
            buffer = "";
            if (c === 0x3f) {
              url.query = "";
              state = QUERY;
            }
            if (c === 0x23) {
              url.fragment = "";
              state = FRAGMENT;
            }
          } else {
            const re = override ? (special ? runs.pathOverrideSpecial : runs.pathOverride)
              : special ? runs.pathSpecial : runs.path;
            const run = runAt(re, input, p);
            buffer += percentEncodeString(run, pathSet);
            p += run.length - 1;
          }
          break;
        }
        case OPAQUE_PATH:
          if (c === 0x3f) {
            url.query = "";
            state = QUERY;
          } else if (c === 0x23) {
            url.fragment = "";
            state = FRAGMENT;
          } else if (c !== EOF) {
            const run = runAt(runs.opaquePath, input, p);
            url.path += percentEncodeString(run, c0ControlSet);
            p += run.length - 1;
          }
          break;
        case QUERY:
          if ((!override && c === 0x23) || c === EOF) {
            url.query += percentEncodeString(buffer, special ? specialQuerySet : querySet);
            buffer = "";
            if (c === 0x23) {
              url.fragment = "";
              state = FRAGMENT;
            }
          } else {
            const run = override ? input.slice(p) : runAt(runs.query, input, p);
            buffer += run;
            p += run.length - 1;
          }
          break;
        case FRAGMENT:
          if (c !== EOF) {
            url.fragment += percentEncodeString(input.slice(p), fragmentSet);
            p = length - 1;
          }
          break;
        case SCHEME_START:
          if (isASCIIAlpha(c)) {
            buffer += input[p].toLowerCase();
            state = SCHEME;
          } else if (!override) {
            state = NO_SCHEME;
            p--;
          } else {
            return null;
          }
          break;
        case SCHEME:
          if (isASCIIAlpha(c) || isASCIIDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e) {
            const run = runAt(runs.scheme, input, p);
            buffer += run.toLowerCase();
            p += run.length - 1;
          } else if (c === 0x3a) {
            if (override) {
              if (isSpecialScheme(url.scheme) !== isSpecialScheme(buffer)) return url;
              if ((includesCredentials(url) || url.port !== null) && buffer === "file") return url;
              if (url.scheme === "file" && url.host === "") return url;
            }
            setScheme(buffer);
            if (override) {
              if (url.port === defaultPort(url.scheme)) url.port = null;
              return url;
            }
            buffer = "";
            if (url.scheme === "file") {
              state = FILE;
            } else if (special && base !== null && base.scheme === url.scheme) {
              state = SPECIAL_RELATIVE_OR_AUTHORITY;
            } else if (special) {
              state = SPECIAL_AUTHORITY_SLASHES;
            } else if (input.charCodeAt(p + 1) === 0x2f) {
              state = PATH_OR_AUTHORITY;
              p++;
            } else {
              url.path = "";
              state = OPAQUE_PATH;
            }
          } else if (!override) {
            buffer = "";
            state = NO_SCHEME;
            p = -1;
          } else {
            return null;
          }
          break;
        case NO_SCHEME:
          if (base === null || (hasOpaquePath(base) && c !== 0x23)) return null;
          if (hasOpaquePath(base) && c === 0x23) {
            setScheme(base.scheme);
            url.path = base.path;
            url.query = base.query;
            url.fragment = "";
            state = FRAGMENT;
          } else {
            state = base.scheme !== "file" ? RELATIVE : FILE;
            p--;
          }
          break;
        case SPECIAL_RELATIVE_OR_AUTHORITY:
          if (c === 0x2f && input.charCodeAt(p + 1) === 0x2f) {
            state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
            p++;
          } else {
            state = RELATIVE;
            p--;
          }
          break;
        case PATH_OR_AUTHORITY:
          if (c === 0x2f) {
            state = AUTHORITY;
          } else {
            state = PATH;
            p--;
          }
          break;
        case RELATIVE:
          setScheme(base.scheme);
          if (c === 0x2f || (special && c === 0x5c)) {
            state = RELATIVE_SLASH;
          } else {
            url.username = base.username;
            url.password = base.password;
            url.host = base.host;
            url.port = base.port;
            url.path = base.path.slice();
            url.query = base.query;
            if (c === 0x3f) {
              url.query = "";
              state = QUERY;
            } else if (c === 0x23) {
              url.fragment = "";
              state = FRAGMENT;
            } else if (c !== EOF) {
              url.query = null;
              shortenPath(url);
              state = PATH;
              p--;
            }
          }
          break;
        case RELATIVE_SLASH:
          if (special && (c === 0x2f || c === 0x5c)) {
            state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
          } else if (c === 0x2f) {
            state = AUTHORITY;
          } else {
            url.username = base.username;
            url.password = base.password;
            url.host = base.host;
            url.port = base.port;
            state = PATH;
            p--;
          }
          break;
        case SPECIAL_AUTHORITY_SLASHES:
          state = SPECIAL_AUTHORITY_IGNORE_SLASHES;
          if (c === 0x2f && input.charCodeAt(p + 1) === 0x2f) p++;
          else p--;
          break;
        case SPECIAL_AUTHORITY_IGNORE_SLASHES:
          if (c !== 0x2f && c !== 0x5c) {
            state = AUTHORITY;
            p--;
          }
          break;
        case AUTHORITY:
          if (c === 0x40) {
            if (atSignSeen) buffer = "%40" + buffer;
            atSignSeen = true;
            for (const ch of buffer) {
              if (ch === ":" && !passwordTokenSeen) {
                passwordTokenSeen = true;
                continue;
              }
              const encoded = percentEncodeCodePoint(ch.codePointAt(0), userinfoSet);
              if (passwordTokenSeen) url.password += encoded;
              else url.username += encoded;
            }
            buffer = "";
          } else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 || (special && c === 0x5c)) {
            if (atSignSeen && buffer === "") return null;
            p -= buffer.length + 1;
            buffer = "";
            state = HOST;
          } else {
            const run = runAt(special ? runs.authoritySpecial : runs.authority, input, p);
            buffer += run;
            p += run.length - 1;
          }
          break;
        case HOST:
        case HOSTNAME:
          if (override && url.scheme === "file") {
            p--;
            state = FILE_HOST;
          } else if (c === 0x3a && !insideBrackets) {
            if (buffer === "") return null;
            if (override === HOSTNAME) return null;
            const host = parseHost(buffer, !special);
            if (host === null) return null;
            url.host = host;
            buffer = "";
            state = PORT;
          } else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 || (special && c === 0x5c)) {
            p--;
            if (special && buffer === "") return null;
            if (override && buffer === "" && (includesCredentials(url) || url.port !== null)) return null;
            const host = parseHost(buffer, !special);
            if (host === null) return null;
            url.host = host;
            buffer = "";
            state = PATH_START;
            if (override) return url;
          } else if (c === 0x5b || c === 0x5d || c === 0x3a) {
            if (c === 0x5b) insideBrackets = true;
            if (c === 0x5d) insideBrackets = false;
            buffer += input[p];
          } else {
            const run = runAt(special ? runs.hostSpecial : runs.host, input, p);
            buffer += run;
            p += run.length - 1;
          }
          break;
        case PORT:
          if (isASCIIDigit(c)) {
            buffer += input[p];
          } else if (c === EOF || c === 0x2f || c === 0x3f || c === 0x23 || (special && c === 0x5c) || override) {
            if (buffer !== "") {
              const port = /^0*([0-9]{1,5})$/.exec(buffer);
              if (port === null || Number(port[1]) > 65535) return null;
              url.port = Number(port[1]) === defaultPort(url.scheme) ? null : Number(port[1]);
              buffer = "";
            }
            if (override) return url;
            state = PATH_START;
            p--;
          } else {
            return null;
          }
          break;
        case FILE:
          setScheme("file");
          url.host = "";
          if (c === 0x2f || c === 0x5c) {
            state = FILE_SLASH;
          } else if (base !== null && base.scheme === "file") {
            url.host = base.host;
            url.path = base.path.slice();
            url.query = base.query;
            if (c === 0x3f) {
              url.query = "";
              state = QUERY;
            } else if (c === 0x23) {
              url.fragment = "";
              state = FRAGMENT;
            } else if (c !== EOF) {
              url.query = null;
              if (!startsWithWindowsDriveLetter(input, p)) shortenPath(url);
              else url.path = [];
              state = PATH;
              p--;
            }
          } else {
            state = PATH;
            p--;
          }
          break;
        case FILE_SLASH:
          if (c === 0x2f || c === 0x5c) {
            state = FILE_HOST;
          } else {
            if (base !== null && base.scheme === "file") {
              url.host = base.host;
              if (!startsWithWindowsDriveLetter(input, p) && isNormalizedWindowsDriveLetter(base.path[0] ?? "")) {
                url.path.push(base.path[0]);
              }
            }
            state = PATH;
            p--;
          }
          break;
        case FILE_HOST:
          if (c === EOF || c === 0x2f || c === 0x5c || c === 0x3f || c === 0x23) {
            p--;
            if (!override && isWindowsDriveLetter(buffer)) {
              state = PATH; // the buffer is the path's first segment
            } else if (buffer === "") {
              url.host = "";
              if (override) return url;
              state = PATH_START;
            } else {
              let host = parseHost(buffer, !special);
              if (host === null) return null;
              if (host === "localhost") host = "";
              url.host = host;
              if (override) return url;
              buffer = "";
              state = PATH_START;
            }
          } else {
            const run = runAt(runs.fileHost, input, p);
            buffer += run;
            p += run.length - 1;
          }
          break;
        case PATH_START:
          if (special) {
            state = PATH;
            if (c !== 0x2f && c !== 0x5c) p--;
          } else if (!override && c === 0x3f) {
            url.query = "";
            state = QUERY;
          } else if (!override && c === 0x23) {
            url.fragment = "";
            state = FRAGMENT;
          } else if (c !== EOF) {
            state = PATH;
            if (c !== 0x2f) p--;
          } else if (override && url.host === null) {
            url.path.push("");
          }
          break;
      }
      // As in the standard: a state that stepped back from the end runs the
      // next state on the end again.
      if (p >= length) return url;
    }
  }

  function serializePath(url) {
    return hasOpaquePath(url) ? url.path : url.path.map((segment) => "/" + segment).join("");
  }
  function serializeURL(url, excludeFragment = false) {
    let out = url.scheme + ":";
    if (url.host !== null) {
      out += "//";
      if (includesCredentials(url)) {
        out += url.username + (url.password !== "" ? ":" + url.password : "") + "@";
      }
      out += url.host + (url.port !== null ? ":" + url.port : "");
    } else if (!hasOpaquePath(url) && url.path.length > 1 && url.path[0] === "") {
      out += "/.";
    }
    out += serializePath(url);
    if (url.query !== null) out += "?" + url.query;
    if (!excludeFragment && url.fragment !== null) out += "#" + url.fragment;
    return out;
  }
  function serializeOrigin(url) {
    switch (url.scheme) {
      case "blob": {
        const inner = hasOpaquePath(url) ? basicParse(url.path, null) : null;
        return inner !== null && (inner.scheme === "http" || inner.scheme === "https") ? serializeOrigin(inner) : "null";
      }
      case "ftp": case "http": case "https": case "ws": case "wss":
        return url.scheme + "://" + url.host + (url.port !== null ? ":" + url.port : "");
      default:
        return "null";
    }
  }
  // An opaque path keeps no trailing spaces once nothing follows it.
  function stripTrailingSpaces(url) {
    if (hasOpaquePath(url) && url.fragment === null && url.query === null) url.path = url.path.replace(/ +$/, "");
  }

  // application/x-www-form-urlencoded.
  function parseForm(input) {
    const list = [];
    for (const sequence of input.split("&")) {
      if (sequence === "") continue;
      const eq = sequence.indexOf("=");
      const name = eq < 0 ? sequence : sequence.slice(0, eq);
      const value = eq < 0 ? "" : sequence.slice(eq + 1);
      list.push([percentDecode(name.replaceAll("+", " ")), percentDecode(value.replaceAll("+", " "))]);
    }
    return list;
  }
  function serializeForm(list) {
    return list.map(([name, value]) => percentEncodeString(name, formSet, true) + "=" + percentEncodeString(value, formSet, true)).join("&");
  }

  const invalidURL = (input) => {
    const error = new TypeError("Invalid URL");
    defineProperty(error, "input", { value: input, writable: true, enumerable: true, configurable: true });
    return error;
  };
  function parseWithBase(url, base) {
    let baseRecord = null;
    if (base !== undefined) {
      baseRecord = basicParse(toUSVString(base), null);
      if (baseRecord === null) return null;
    }
    return basicParse(toUSVString(url), baseRecord);
  }

  // URLSearchParams keeps its URL (when it has one) up to date, and URL
  // refreshes its URLSearchParams when the query changes: the live link.
  let attachSearchParams; // (params, url record) -> void; set in the class body
  let resetSearchParams; // (params, list) -> void

  class URL {
    #url;
    #params = null; // made when first asked for: most URLs never are
    constructor(url, base = undefined) {
      requireArguments(arguments.length, 1, "URL");
      const record = parseWithBase(url, base);
      if (record === null) throw invalidURL(String(url));
      this.#url = record;
    }
    static canParse(url, base = undefined) {
      requireArguments(arguments.length, 1, "URL.canParse");
      return parseWithBase(url, base) !== null;
    }
    static parse(url, base = undefined) {
      requireArguments(arguments.length, 1, "URL.parse");
      try {
        return new URL(url, base);
      } catch {
        return null;
      }
    }
    get href() { return serializeURL(this.#url); }
    set href(value) {
      const record = basicParse(toUSVString(value), null);
      if (record === null) throw invalidURL(String(value));
      this.#url = record;
      if (this.#params !== null) {
        resetSearchParams(this.#params, record.query === null ? [] : parseForm(record.query));
        attachSearchParams(this.#params, record);
      }
    }
    get origin() { return serializeOrigin(this.#url); }
    get protocol() { return this.#url.scheme + ":"; }
    set protocol(value) { basicParse(toUSVString(value) + ":", null, this.#url, SCHEME_START); }
    get username() { return this.#url.username; }
    set username(value) {
      if (!cannotHaveCredentialsOrPort(this.#url)) this.#url.username = percentEncodeString(toUSVString(value), userinfoSet);
    }
    get password() { return this.#url.password; }
    set password(value) {
      if (!cannotHaveCredentialsOrPort(this.#url)) this.#url.password = percentEncodeString(toUSVString(value), userinfoSet);
    }
    get host() {
      const url = this.#url;
      if (url.host === null) return "";
      return url.port === null ? url.host : url.host + ":" + url.port;
    }
    set host(value) {
      if (!hasOpaquePath(this.#url)) basicParse(toUSVString(value), null, this.#url, HOST);
    }
    get hostname() { return this.#url.host ?? ""; }
    set hostname(value) {
      if (!hasOpaquePath(this.#url)) basicParse(toUSVString(value), null, this.#url, HOSTNAME);
    }
    get port() { return this.#url.port === null ? "" : String(this.#url.port); }
    set port(value) {
      if (cannotHaveCredentialsOrPort(this.#url)) return;
      value = toUSVString(value);
      if (value === "") this.#url.port = null;
      else basicParse(value, null, this.#url, PORT);
    }
    get pathname() { return serializePath(this.#url); }
    set pathname(value) {
      if (hasOpaquePath(this.#url)) return;
      this.#url.path = [];
      basicParse(toUSVString(value), null, this.#url, PATH_START);
    }
    get search() {
      const query = this.#url.query;
      return query === null || query === "" ? "" : "?" + query;
    }
    set search(value) {
      const url = this.#url;
      value = toUSVString(value);
      if (value === "") {
        url.query = null;
        if (this.#params !== null) resetSearchParams(this.#params, []);
        stripTrailingSpaces(url);
        return;
      }
      const input = value[0] === "?" ? value.slice(1) : value;
      url.query = "";
      basicParse(input, null, url, QUERY);
      if (this.#params !== null) resetSearchParams(this.#params, parseForm(input));
    }
    get searchParams() {
      if (this.#params === null) {
        // Not through the constructor, which would drop a leading "?" of the query.
        this.#params = new URLSearchParams();
        resetSearchParams(this.#params, this.#url.query === null ? [] : parseForm(this.#url.query));
        attachSearchParams(this.#params, this.#url);
      }
      return this.#params;
    }
    get hash() {
      const fragment = this.#url.fragment;
      return fragment === null || fragment === "" ? "" : "#" + fragment;
    }
    set hash(value) {
      const url = this.#url;
      value = toUSVString(value);
      if (value === "") {
        url.fragment = null;
        stripTrailingSpaces(url);
        return;
      }
      url.fragment = "";
      basicParse(value[0] === "#" ? value.slice(1) : value, null, url, FRAGMENT);
    }
    toString() { return serializeURL(this.#url); }
    toJSON() { return serializeURL(this.#url); }
  }
  setToStringTag(URL.prototype, "URL");
  for (const name of ["href", "origin", "protocol", "username", "password", "host", "hostname", "port",
    "pathname", "search", "searchParams", "hash"]) {
    defineProperty(URL.prototype, name, { ...getOwnPropertyDescriptor(URL.prototype, name), enumerable: true });
  }

  class URLSearchParams {
    #list = [];
    #url = null; // the URL record whose query this is, if any
    static {
      attachSearchParams = (params, url) => { params.#url = url; };
      resetSearchParams = (params, list) => { params.#list = list; };
    }
    constructor(init = "") {
      if (init !== null && typeof init === "object" || typeof init === "function") {
        const iterator = init[Symbol.iterator];
        if (iterator !== undefined && iterator !== null) {
          if (typeof iterator !== "function") throw new TypeError("URLSearchParams: the init object's iterator is not a function");
          for (const pair of init) {
            if (pair === null || (typeof pair !== "object" && typeof pair !== "function") || typeof pair[Symbol.iterator] !== "function") {
              throw new TypeError("Each query pair must be an iterable [name, value] tuple");
            }
            const items = [...pair];
            if (items.length !== 2) throw new TypeError("Each query pair must be an iterable [name, value] tuple");
            this.#list.push([toUSVString(items[0]), toUSVString(items[1])]);
          }
        } else {
          for (const key of Reflect.ownKeys(init)) {
            const desc = getOwnPropertyDescriptor(init, key);
            if (desc === undefined || !desc.enumerable || typeof key === "symbol") continue;
            this.#list.push([toUSVString(key), toUSVString(init[key])]);
          }
        }
      } else {
        const text = toUSVString(init);
        this.#list = parseForm(text[0] === "?" ? text.slice(1) : text);
      }
    }
    #update() {
      const url = this.#url;
      if (url === null) return;
      const text = serializeForm(this.#list);
      url.query = text === "" ? null : text;
      if (url.query === null) stripTrailingSpaces(url);
    }
    get size() { return this.#list.length; }
    append(name, value) {
      requireArguments(arguments.length, 2, "URLSearchParams.append");
      this.#list.push([toUSVString(name), toUSVString(value)]);
      this.#update();
    }
    delete(name, value = undefined) {
      requireArguments(arguments.length, 1, "URLSearchParams.delete");
      name = toUSVString(name);
      if (value === undefined) {
        this.#list = this.#list.filter((pair) => pair[0] !== name);
      } else {
        value = toUSVString(value);
        this.#list = this.#list.filter((pair) => pair[0] !== name || pair[1] !== value);
      }
      this.#update();
    }
    get(name) {
      requireArguments(arguments.length, 1, "URLSearchParams.get");
      name = toUSVString(name);
      const pair = this.#list.find((p) => p[0] === name);
      return pair === undefined ? null : pair[1];
    }
    getAll(name) {
      requireArguments(arguments.length, 1, "URLSearchParams.getAll");
      name = toUSVString(name);
      return this.#list.filter((p) => p[0] === name).map((p) => p[1]);
    }
    has(name, value = undefined) {
      requireArguments(arguments.length, 1, "URLSearchParams.has");
      name = toUSVString(name);
      if (value === undefined) return this.#list.some((p) => p[0] === name);
      value = toUSVString(value);
      return this.#list.some((p) => p[0] === name && p[1] === value);
    }
    set(name, value) {
      requireArguments(arguments.length, 2, "URLSearchParams.set");
      name = toUSVString(name);
      value = toUSVString(value);
      const i = this.#list.findIndex((p) => p[0] === name);
      if (i < 0) {
        this.#list.push([name, value]);
      } else {
        this.#list[i][1] = value;
        this.#list = this.#list.filter((p, j) => j <= i || p[0] !== name);
      }
      this.#update();
    }
    sort() {
      // Stable, by UTF-16 code units of the names.
      this.#list = this.#list
        .map((pair, i) => [pair, i])
        .sort(([a, i], [b, j]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : i - j))
        .map(([pair]) => pair);
      this.#update();
    }
    forEach(callback, thisArg = undefined) {
      if (typeof callback !== "function") throw new TypeError("URLSearchParams.forEach: the callback must be a function");
      for (let i = 0; i < this.#list.length; i++) {
        const [name, value] = this.#list[i];
        callback.call(thisArg, value, name, this);
      }
    }
    *entries() {
      for (let i = 0; i < this.#list.length; i++) yield [this.#list[i][0], this.#list[i][1]];
    }
    *keys() {
      for (let i = 0; i < this.#list.length; i++) yield this.#list[i][0];
    }
    *values() {
      for (let i = 0; i < this.#list.length; i++) yield this.#list[i][1];
    }
    toString() { return serializeForm(this.#list); }
  }
  defineProperty(URLSearchParams.prototype, Symbol.iterator, {
    value: URLSearchParams.prototype.entries, writable: true, configurable: true,
  });
  setToStringTag(URLSearchParams.prototype, "URLSearchParams");
  defineGlobal("URL", URL, false);
  defineGlobal("URLSearchParams", URLSearchParams, false);

  // --- structuredClone (HTML's StructuredSerialize/Deserialize in one pass) ---
  // What a value is, by its QuickJS class (native.classId), sampled from one
  // object of each kind now: unlike a prototype or Symbol.toStringTag, a class
  // cannot be faked, and an object of any class not listed (Promise, WeakMap,
  // Proxy, generator...) is not cloneable, as the standard says.
  const kinds = new Map([
    [{}, "Object"], [[], "Array"], [new Date(0), "Date"], [/x/, "RegExp"], [new Map(), "Map"],
    [new Set(), "Set"], [new ArrayBuffer(0), "ArrayBuffer"], [new DataView(new ArrayBuffer(0)), "DataView"],
    [new Error(), "Error"], [Object(false), "Boolean"], [Object(0), "Number"], [Object(""), "String"],
    [Object(0n), "BigInt"],
    ...[Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
      Float32Array, Float64Array, BigInt64Array, BigUint64Array].map((T) => [new T(0), T]),
  ].map(([sample, kind]) => [native.classId(sample), kind]));
  const errorConstructors = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const cloneError = (message) => new DOMException(message, "DataCloneError");
  const uncloneable = (value) => {
    let what;
    if (typeof value === "function") what = Function.prototype.toString.call(value);
    else if (typeof value === "symbol") what = value.toString();
    else what = `#<${typeof value.constructor?.name === "string" && value.constructor.name || "Object"}>`;
    return cloneError(`${what} could not be cloned.`);
  };

  function structuredClone(value, options = undefined) {
    requireArguments(arguments.length, 1, "structuredClone");
    const memory = new Map();
    const transfer = options?.transfer === undefined ? [] : [...options.transfer];
    for (const buffer of transfer) {
      if (kinds.get(native.classId(buffer)) !== "ArrayBuffer") throw cloneError("Value not transferable");
      if (memory.has(buffer)) throw cloneError("ArrayBuffer appears more than once in the transfer list");
      memory.set(buffer, null);
    }
    for (const buffer of transfer) memory.set(buffer, arrayBufferSlice.call(buffer, 0));
    const result = clone(value, memory);
    for (const buffer of transfer) native.detach(buffer);
    return result;
  }

  // MEMORY maps each object already cloned to its clone: shared references
  // and cycles come out the same shape.
  function clone(value, memory) {
    if (typeof value === "symbol" || typeof value === "function") throw uncloneable(value);
    if (value === null || typeof value !== "object") return value;
    if (memory.has(value)) return memory.get(value);
    const kind = kinds.get(native.classId(value));
    let out;
    switch (kind) {
      case "Boolean": out = Object(Boolean.prototype.valueOf.call(value)); break;
      case "Number": out = Object(Number.prototype.valueOf.call(value)); break;
      case "String": out = Object(String.prototype.valueOf.call(value)); break;
      case "BigInt": out = Object(BigInt.prototype.valueOf.call(value)); break;
      case "Date": out = new Date(dateGetTime.call(value)); break;
      case "RegExp": out = new RegExp(regExpSource.call(value), regExpFlags.call(value)); break;
      case "ArrayBuffer": out = arrayBufferSlice.call(value, 0); break;
      case "DataView":
        out = new DataView(clone(value.buffer, memory), value.byteOffset, dataViewByteLength.call(value));
        break;
      case "Map":
        out = new Map();
        memory.set(value, out);
        // The entries are read first, so a getter run by the cloning cannot change them.
        for (const [k, v] of [...mapEntries.call(value)]) out.set(clone(k, memory), clone(v, memory));
        return out;
      case "Set":
        out = new Set();
        memory.set(value, out);
        for (const v of [...setValues.call(value)]) out.add(clone(v, memory));
        return out;
      case "Error": {
        const message = getOwnPropertyDescriptor(value, "message");
        const text = message !== undefined && "value" in message ? String(message.value) : undefined;
        if (value instanceof DOMException) {
          out = new DOMException(text, value.name);
        } else {
          const name = value.name;
          const Ctor = typeof name === "string" && Object.hasOwn(errorConstructors, name) ? errorConstructors[name] : Error;
          out = text === undefined ? new Ctor() : new Ctor(text);
        }
        memory.set(value, out);
        const stack = getOwnPropertyDescriptor(value, "stack");
        if (stack !== undefined && typeof stack.value === "string") {
          defineProperty(out, "stack", { value: stack.value, writable: true, configurable: true });
        }
        if (Object.hasOwn(value, "cause")) {
          defineProperty(out, "cause", { value: clone(value.cause, memory), writable: true, configurable: true });
        }
        return out;
      }
      case "Array":
        out = new Array(value.length);
        memory.set(value, out);
        for (const key of objectKeys(value)) out[key] = clone(value[key], memory);
        return out;
      case "Object":
        out = {};
        memory.set(value, out);
        for (const key of objectKeys(value)) {
          // A getter run by the cloning may have deleted a later property.
          if (Object.hasOwn(value, key)) out[key] = clone(value[key], memory);
        }
        return out;
      default:
        if (typeof kind !== "function") throw uncloneable(value);
        out = new kind(clone(value.buffer, memory), value.byteOffset, value.length);
    }
    memory.set(value, out);
    return out;
  }
  defineGlobal("structuredClone", structuredClone, true);

  // --- crypto (getRandomValues and randomUUID; no crypto.subtle) --------------
  // The bytes come from WASI random_get: the run's seeded source under our
  // host, so a run is repeatable for its seed.
  const integerTypedArrays = new Set(["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
    "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"]);
  const cryptoMethods = {
    getRandomValues(array) {
      requireArguments(arguments.length, 1, "crypto.getRandomValues");
      const tag = isView(array) ? typedArrayTag.call(array) : undefined;
      if (!integerTypedArrays.has(tag)) {
        throw new DOMException("The data argument must be an integer-type TypedArray", "TypeMismatchError");
      }
      if (array.byteLength > 65536) {
        throw new DOMException("The requested length exceeds 65,536 bytes", "QuotaExceededError");
      }
      native.randomFill(array);
      return array;
    },
    randomUUID() {
      const b = new Uint8Array(16);
      native.randomFill(b);
      b[6] = (b[6] & 0x0f) | 0x40; // version 4
      b[8] = (b[8] & 0x3f) | 0x80; // variant 10
      let h = "";
      for (const byte of b) h += (byte < 16 ? "0" : "") + byte.toString(16);
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
  const crypto = {};
  defineMethods(crypto, cryptoMethods, true);
  setToStringTag(crypto, "Crypto");
  defineGlobal("crypto", crypto, true);
})
