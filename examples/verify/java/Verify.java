// Verifying Hookstream's callbacks in Java (17 or later), with the standard library only; run as
// one source file: `java Verify.java case.json`. Each method takes the request's headers with
// lower-case names and the body's exact bytes as received (read them raw, before any JSON
// parsing), and returns true only for a request Hookstream signed with what you agreed. The
// blocks between "--- METHOD ---" lines are the ones docs/verifying.md and the console show; each
// needs COMMON, and MD5 and BEARER_JWT the small JSON reader at the end (Json) or a JSON library.
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public class Verify {
  // --- COMMON ---
  // imports: java.nio.charset.StandardCharsets, java.security.MessageDigest, java.time.Instant,
  // java.util.*, java.util.HexFormat, javax.crypto.Mac, javax.crypto.spec.SecretKeySpec
  static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  /** Equal in constant time (equals() leaks, by its timing, how much of a guess was right). */
  static boolean same(String a, String b) {
    return a != null && MessageDigest.isEqual(a.getBytes(UTF8), b.getBytes(UTF8));
  }

  static byte[] hmac(String algorithm, byte[] key, byte[]... parts) throws Exception {
    Mac mac = Mac.getInstance(algorithm);
    mac.init(new SecretKeySpec(key, algorithm));
    for (byte[] part : parts) mac.update(part);
    return mac.doFinal();
  }
  // --- end ---

  // --- HMAC_SHA256 ---
  // apiKey: the callback key, the value our callbacks carry in keyHeader (X-API-Key unless agreed otherwise),
  // agreed with the insurer at onboarding. Not the hsk_… API key you sign in to the console with.
  // keyHeader, timestampHeader, signatureHeader: the header names agreed with you (any case).
  static boolean verifyHmacSha256(Map<String, String> headers, byte[] body, String apiKey, String secret,
      String keyHeader, String timestampHeader, String signatureHeader) throws Exception {
    String timestamp = headers.getOrDefault(timestampHeader.toLowerCase(), "");
    Instant sentAt;
    try {
      sentAt = Instant.parse(timestamp);
    } catch (java.time.format.DateTimeParseException e) {
      return false;
    }
    if (Math.abs(Instant.now().getEpochSecond() - sentAt.getEpochSecond()) > 5 * 60) return false; // a replay, or a clock far off
    byte[] digest = hmac("HmacSHA256", secret.getBytes(UTF8), (apiKey + "|" + timestamp + "|").getBytes(UTF8), body);
    String expected = Base64.getEncoder().encodeToString(digest);
    return same(headers.get(keyHeader.toLowerCase()), apiKey) & same(headers.get(signatureHeader.toLowerCase()), expected);
  }
  // --- end ---

  // --- MD5 ---
  // parts: the agreed contract as {kind, path or value} pairs, e.g. {"SECRET", ""}, {"BODY_FIELD", "policy_number"}, {"LITERAL", "|"};
  // placement "HEADER" (target: the header's name) or "BODY_FIELD" (target: the body's top-level field).
  static boolean verifyMd5(Map<String, String> headers, byte[] body, String secret, List<String[]> parts,
      String placement, String target) throws Exception {
    Object fields = Json.parse(new String(body, UTF8));
    StringBuilder signed = new StringBuilder();
    for (String[] part : parts) {
      switch (part[0]) {
        case "SECRET" -> signed.append(secret);
        case "LITERAL" -> signed.append(part[1]);
        default -> { // BODY_FIELD: a string as is, null or absent as nothing, anything else as its JSON text
          Object value = fields;
          for (String step : part[1].split("\\.")) value = value instanceof Map<?, ?> m ? m.get(step) : null;
          signed.append(value == null ? "" : value instanceof String s ? s : Json.write(value));
        }
      }
    }
    String expected = HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(signed.toString().getBytes(UTF8)));
    Object received = placement.equals("HEADER") ? headers.get(target.toLowerCase()) : ((Map<?, ?>) fields).get(target);
    return received instanceof String s && same(s, expected);
  }
  // --- end ---

  // --- STANDARD_WEBHOOKS ---
  // secret: "whsec_" followed by Base64, as agreed. (Any Standard Webhooks library does the same.)
  static boolean verifyStandardWebhooks(Map<String, String> headers, byte[] body, String secret) throws Exception {
    String id = headers.getOrDefault("webhook-id", "");
    String timestamp = headers.getOrDefault("webhook-timestamp", "");
    if (!timestamp.matches("\\d{1,12}") || Math.abs(Instant.now().getEpochSecond() - Long.parseLong(timestamp)) > 5 * 60) return false;
    byte[] key = Base64.getDecoder().decode(secret.startsWith("whsec_") ? secret.substring(6) : secret);
    String expected = Base64.getEncoder().encodeToString(hmac("HmacSHA256", key, (id + "." + timestamp + ".").getBytes(UTF8), body));
    // Several signatures may be sent, separated by spaces (while a secret is being replaced): one must match.
    boolean valid = false;
    for (String signature : headers.getOrDefault("webhook-signature", "").split(" ")) {
      valid |= signature.startsWith("v1,") && same(signature.substring(3), expected);
    }
    return valid;
  }
  // --- end ---

  // --- API_KEY ---
  // apiKey: the callback key, the value our callbacks carry in headerName, agreed with the insurer at onboarding.
  // Not the hsk_… API key you sign in to the console with.
  // headerName: the header agreed with you (any case).
  static boolean verifyApiKey(Map<String, String> headers, byte[] body, String apiKey, String headerName) {
    return same(headers.get(headerName.toLowerCase()), apiKey);
  }
  // --- end ---

  // --- BEARER_STATIC ---
  static boolean verifyBearerStatic(Map<String, String> headers, byte[] body, String token) {
    return same(headers.get("authorization"), "Bearer " + token);
  }
  // --- end ---

  // --- BASIC ---
  static boolean verifyBasic(Map<String, String> headers, byte[] body, String username, String password) {
    String header = headers.getOrDefault("authorization", "");
    if (!header.startsWith("Basic ")) return false;
    String decoded;
    try {
      decoded = new String(Base64.getDecoder().decode(header.substring(6)), UTF8);
    } catch (IllegalArgumentException e) {
      return false;
    }
    int colon = decoded.indexOf(':');
    if (colon < 0) return false;
    // Both compared, whatever the first gave: the time taken says nothing of which was wrong.
    return same(decoded.substring(0, colon), username) & same(decoded.substring(colon + 1), password);
  }
  // --- end ---

  // --- BEARER_JWT ---
  // algorithm: "HS256", "HS384" or "HS512", issuer and lifetimeSeconds as agreed. Remember each jti until its exp to refuse a replay.
  static boolean verifyBearerJwt(Map<String, String> headers, byte[] body, String secret, String algorithm, String issuer,
      long lifetimeSeconds) throws Exception {
    String header = headers.getOrDefault("authorization", "");
    String[] pieces = header.startsWith("Bearer ") ? header.substring(7).split("\\.", -1) : new String[0];
    if (pieces.length != 3) return false;
    Base64.Decoder b64url = Base64.getUrlDecoder();
    Map<?, ?> head = (Map<?, ?>) Json.parse(new String(b64url.decode(pieces[0]), UTF8));
    if (!algorithm.equals(head.get("alg"))) return false; // never the alg the token names: the one agreed
    String mac = "Hmac" + algorithm.replace("HS", "SHA");
    byte[] expected = hmac(mac, secret.getBytes(UTF8), (pieces[0] + "." + pieces[1]).getBytes(StandardCharsets.US_ASCII));
    if (!MessageDigest.isEqual(b64url.decode(pieces[2]), expected)) return false;
    Map<?, ?> claims = (Map<?, ?>) Json.parse(new String(b64url.decode(pieces[1]), UTF8));
    if (!issuer.equals(claims.get("iss")) || !(claims.get("iat") instanceof Number iat) || !(claims.get("exp") instanceof Number exp)) {
      return false;
    }
    long now = Instant.now().getEpochSecond();
    // 30 s for clocks apart; a token that lives longer than agreed is not ours.
    return now < exp.longValue() + 30 && iat.longValue() <= now + 30 && exp.longValue() - iat.longValue() <= lifetimeSeconds;
  }
  // --- end ---

  /** The test's entry: `java Verify.java case.json` prints "valid" (exit 0) or "refused" (exit 1). */
  public static void main(String[] args) throws Exception {
    Map<?, ?> testCase = (Map<?, ?>) Json.parse(Files.readString(Path.of(args[0])));
    Map<?, ?> c = (Map<?, ?>) testCase.get("config");
    Map<String, String> headers = new LinkedHashMap<>();
    ((Map<?, ?>) testCase.get("headers")).forEach((name, value) -> headers.put((String) name, (String) value));
    byte[] body = Base64.getDecoder().decode((String) testCase.get("body_base64"));
    boolean valid;
    try {
      valid = switch ((String) testCase.get("method")) {
        case "HMAC_SHA256" -> verifyHmacSha256(headers, body, s(c, "api_key"), s(c, "secret"), s(c, "key_header"),
            s(c, "timestamp_header"), s(c, "signature_header"));
        case "MD5" -> {
          List<String[]> parts = new ArrayList<>();
          for (Object p : (List<?>) c.get("parts")) {
            Map<?, ?> part = (Map<?, ?>) p;
            parts.add(new String[] {s(part, "kind"), s(part, "BODY_FIELD".equals(part.get("kind")) ? "path" : "value")});
          }
          yield verifyMd5(headers, body, s(c, "secret"), parts, s(c, "placement"), s(c, "target"));
        }
        case "STANDARD_WEBHOOKS" -> verifyStandardWebhooks(headers, body, s(c, "secret"));
        case "API_KEY" -> verifyApiKey(headers, body, s(c, "api_key"), s(c, "header_name"));
        case "BEARER_STATIC" -> verifyBearerStatic(headers, body, s(c, "token"));
        case "BASIC" -> verifyBasic(headers, body, s(c, "username"), s(c, "password"));
        case "BEARER_JWT" -> verifyBearerJwt(headers, body, s(c, "secret"), s(c, "algorithm"), s(c, "issuer"),
            ((Number) c.get("lifetime_seconds")).longValue());
        default -> false;
      };
    } catch (RuntimeException e) {
      valid = false; // a body or header that cannot be read is refused
    }
    System.out.println(valid ? "valid" : "refused");
    System.exit(valid ? 0 : 1);
  }

  static String s(Map<?, ?> map, String key) {
    Object value = map.get(key);
    return value == null ? "" : (String) value;
  }

  /**
   * A small JSON reader and writer (Java's standard library has none): objects as LinkedHashMap,
   * arrays as List, numbers as Long or Double, and write() as JavaScript's JSON.stringify does for
   * the values a callback carries. A JSON library (Jackson, Gson) does the same where you have one.
   */
  static final class Json {
    private final String text;
    private int at;

    private Json(String text) {
      this.text = text;
    }

    static Object parse(String text) {
      Json json = new Json(text);
      Object value = json.value();
      json.space();
      if (json.at != text.length()) throw new IllegalArgumentException("trailing text at " + json.at);
      return value;
    }

    private void space() {
      while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) at++;
    }

    private Object value() {
      space();
      if (at >= text.length()) throw new IllegalArgumentException("unexpected end");
      char c = text.charAt(at);
      if (c == '{') {
        Map<String, Object> map = new LinkedHashMap<>();
        at++;
        space();
        if (text.charAt(at) == '}') {
          at++;
          return map;
        }
        do {
          space();
          String key = string();
          space();
          expect(':');
          map.put(key, value());
          space();
        } while (text.charAt(at++) == ',');
        if (text.charAt(at - 1) != '}') throw new IllegalArgumentException("expected } at " + (at - 1));
        return map;
      }
      if (c == '[') {
        List<Object> list = new ArrayList<>();
        at++;
        space();
        if (text.charAt(at) == ']') {
          at++;
          return list;
        }
        do list.add(value()); while (nextIs(','));
        expect(']');
        return list;
      }
      if (c == '"') return string();
      for (String word : new String[] {"true", "false", "null"}) {
        if (text.startsWith(word, at)) {
          at += word.length();
          return word.equals("null") ? null : Boolean.valueOf(word);
        }
      }
      int start = at;
      while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
      String number = text.substring(start, at);
      if (number.isEmpty()) throw new IllegalArgumentException("unexpected " + c + " at " + start);
      double d = Double.parseDouble(number);
      return d == Math.rint(d) && Math.abs(d) < 9.007199254740992E15 ? (Object) (long) d : (Object) d;
    }

    private boolean nextIs(char c) {
      space();
      if (at < text.length() && text.charAt(at) == c) {
        at++;
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (!nextIs(c)) throw new IllegalArgumentException("expected " + c + " at " + at);
    }

    private String string() {
      expect('"');
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = text.charAt(at++);
        if (c == '"') return out.toString();
        if (c != '\\') {
          out.append(c);
          continue;
        }
        char e = text.charAt(at++);
        switch (e) {
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
            at += 4;
          }
          default -> out.append(e);
        }
      }
    }

    static String write(Object value) {
      if (value == null) return "null";
      if (value instanceof String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
          switch (c) {
            case '"' -> out.append("\\\"");
            case '\\' -> out.append("\\\\");
            case '\b' -> out.append("\\b");
            case '\f' -> out.append("\\f");
            case '\n' -> out.append("\\n");
            case '\r' -> out.append("\\r");
            case '\t' -> out.append("\\t");
            default -> out.append(c < 0x20 ? String.format("\\u%04x", (int) c) : String.valueOf(c));
          }
        }
        return out.append('"').toString();
      }
      if (value instanceof Map<?, ?> map) {
        List<String> members = new ArrayList<>();
        map.forEach((k, v) -> members.add(write(k) + ":" + write(v)));
        return "{" + String.join(",", members) + "}";
      }
      if (value instanceof List<?> list) {
        List<String> items = new ArrayList<>();
        list.forEach(v -> items.add(write(v)));
        return "[" + String.join(",", items) + "]";
      }
      return String.valueOf(value); // Boolean, Long, Double
    }
  }
}
