package io.kinformer.testing;

import java.io.ByteArrayOutputStream;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * Go's {@code json.MarshalIndent(v, "", "  ")} layout, applied to compact JSON: kube-apiserver
 * pretty-prints for curl, Wget and browsers, and for {@code ?pretty=true} (transcript 01 §1.24).
 *
 * <p>Thread safety: stateless.
 */
final class PrettyJson {

  private PrettyJson() {}

  /** Whether the real server would pretty-print its answer to {@code request}. */
  static boolean wanted(Request request) {
    String ua = request.getHeaders().get(HttpHeader.USER_AGENT);
    if (ua != null && (ua.startsWith("curl") || ua.startsWith("Wget")
        || ua.startsWith("Mozilla/5.0"))) {
      return true;
    }
    String q = request.getHttpURI().getQuery();
    if (q == null) {
      return false;
    }
    for (String p : q.split("&")) {
      String v = p.toLowerCase(Locale.ROOT);
      if (v.equals("pretty=true") || v.equals("pretty=1")) {
        return true;
      }
    }
    return false;
  }

  /** Re-indents compact JSON; strings are copied untouched. */
  static byte[] indent(byte[] json) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(json.length * 2);
    int depth = 0;
    boolean inString = false;
    for (int i = 0; i < json.length; i++) {
      byte b = json[i];
      if (inString) {
        out.write(b);
        if (b == '\\' && i + 1 < json.length) {
          out.write(json[++i]);
        } else if (b == '"') {
          inString = false;
        }
        continue;
      }
      switch (b) {
        case '"':
          inString = true;
          out.write(b);
          break;
        case '{':
        case '[':
          out.write(b);
          if (i + 1 < json.length && (json[i + 1] == '}' || json[i + 1] == ']')) {
            out.write(json[++i]);
          } else {
            newline(out, ++depth);
          }
          break;
        case '}':
        case ']':
          newline(out, --depth);
          out.write(b);
          break;
        case ',':
          out.write(b);
          newline(out, depth);
          break;
        case ':':
          out.write(b);
          out.write(' ');
          break;
        case '\n':
          break;
        default:
          out.write(b);
      }
    }
    return out.toByteArray();
  }

  private static void newline(ByteArrayOutputStream out, int depth) {
    out.write('\n');
    for (int d = 0; d < depth; d++) {
      out.write(' ');
      out.write(' ');
    }
  }
}
