package io.kinformer.client.internal.http;

import java.net.IDN;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A {@code NO_PROXY} list, with the matching rules of Go's {@code golang.org/x/net/http/httpproxy}
 * (what client-go's {@code http.ProxyFromEnvironment} uses).
 *
 * <p>Entries are separated by commas; spaces around them and letter case do not matter; empty
 * entries are skipped:
 *
 * <ul>
 *   <li>{@code *} alone: no host is proxied;
 *   <li>an IP address ({@code 10.0.0.1}, {@code ::1}, {@code [::1]:6443}): that address, on any
 *       port or on the given one;
 *   <li>a CIDR range ({@code 10.0.0.0/8}, {@code fd00::/8}): every address in it, on any port;
 *   <li>a domain name ({@code example.com}): that host and its subdomains; with a leading dot or
 *       {@code *.} ({@code .example.com}, {@code *.example.com}): only the subdomains. A port
 *       ({@code example.com:6443}) restricts the entry to that port.
 * </ul>
 *
 * <p>Domain entries match host names only and IP entries match IP addresses only: no name is
 * resolved. {@code localhost} and loopback addresses are never proxied, whatever the list says.
 *
 * <p>Thread safety: immutable.
 */
final class NoProxy {

  private static final Pattern IPV4 =
      Pattern.compile("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
  private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-f:.]*:[0-9a-f:.]*");

  static final NoProxy EMPTY = new NoProxy(false, List.of(), List.of(), List.of());

  private final boolean all;
  private final List<AddressEntry> addresses;
  private final List<RangeEntry> ranges;
  private final List<DomainEntry> domains;

  private NoProxy(
      boolean all, List<AddressEntry> addresses, List<RangeEntry> ranges,
      List<DomainEntry> domains) {
    this.all = all;
    this.addresses = addresses;
    this.ranges = ranges;
    this.domains = domains;
  }

  /** Parses a list; malformed entries are ignored (as Go does). */
  static NoProxy parse(@Nullable String list) {
    if (list == null || list.isBlank()) {
      return EMPTY;
    }
    List<AddressEntry> addresses = new ArrayList<>();
    List<RangeEntry> ranges = new ArrayList<>();
    List<DomainEntry> domains = new ArrayList<>();
    for (String raw : list.split(",")) {
      String entry = raw.trim().toLowerCase(Locale.ROOT);
      if (entry.isEmpty()) {
        continue;
      }
      if (entry.equals("*")) {
        return new NoProxy(true, List.of(), List.of(), List.of());
      }
      int slash = entry.indexOf('/');
      if (slash >= 0) {
        RangeEntry range = RangeEntry.parse(entry.substring(0, slash), entry.substring(slash + 1));
        if (range != null) {
          ranges.add(range);
        }
        continue; // a slash in anything but a CIDR range is malformed
      }
      String host = entry;
      String port = "";
      if (entry.startsWith("[")) {
        int close = entry.indexOf(']');
        if (close < 0) {
          continue;
        }
        host = entry.substring(1, close);
        String rest = entry.substring(close + 1);
        if (rest.startsWith(":")) {
          port = rest.substring(1);
        } else if (!rest.isEmpty()) {
          continue;
        }
      } else if (entry.indexOf(':') >= 0 && entry.indexOf(':') == entry.lastIndexOf(':')) {
        int colon = entry.indexOf(':');
        host = entry.substring(0, colon);
        port = entry.substring(colon + 1);
      }
      if (host.isEmpty()) {
        continue;
      }
      InetAddress ip = parseIpLiteral(host);
      if (ip != null) {
        addresses.add(new AddressEntry(ip, port));
        continue;
      }
      if (host.startsWith("*.")) {
        host = host.substring(1);
      }
      boolean includesDomain = !host.startsWith(".");
      String suffix = includesDomain ? "." + host : host;
      if (suffix.length() < 2) {
        continue; // "." alone
      }
      domains.add(new DomainEntry(toAscii(suffix), port, includesDomain));
    }
    return new NoProxy(false, List.copyOf(addresses), List.copyOf(ranges), List.copyOf(domains));
  }

  /**
   * Whether a request to this host and port goes through a proxy: false for loopback and for
   * hosts the list names. The host may be an IPv6 literal with or without brackets.
   */
  boolean useProxy(String host, int port) {
    String h = host.trim().toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.isEmpty()) {
      return true;
    }
    if (h.equals("localhost")) {
      return false;
    }
    InetAddress ip = parseIpLiteral(h);
    if (ip != null && ip.isLoopbackAddress()) {
      return false;
    }
    if (all) {
      return false;
    }
    String p = Integer.toString(port);
    if (ip != null) {
      for (AddressEntry a : addresses) {
        if (a.matches(ip, p)) {
          return false;
        }
      }
      for (RangeEntry r : ranges) {
        if (r.contains(ip)) {
          return false;
        }
      }
      return true;
    }
    String name = toAscii(h);
    for (DomainEntry d : domains) {
      if (d.matches(name, p)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    if (all) {
      return "NoProxy[*]";
    }
    List<String> parts = new ArrayList<>();
    addresses.forEach(a -> parts.add(a.toString()));
    ranges.forEach(r -> parts.add(r.toString()));
    domains.forEach(d -> parts.add(d.toString()));
    return "NoProxy" + parts;
  }

  /**
   * The address an IP literal denotes, or null if the text is not one. Never consults DNS: an
   * IPv4 candidate must be four dotted decimals, and an IPv6 candidate is given to {@link
   * InetAddress#getByName} in brackets, which only parses.
   */
  static @Nullable InetAddress parseIpLiteral(String text) {
    try {
      if (IPV4.matcher(text).matches()) {
        return InetAddress.getByName(text);
      }
      if (IPV6_CHARS.matcher(text).matches()) {
        return InetAddress.getByName("[" + text + "]");
      }
    } catch (UnknownHostException | IllegalArgumentException notAnAddress) {
      return null;
    }
    return null;
  }

  /** The ASCII (punycode) form of a name that has non-ASCII letters; a leading dot is kept. */
  private static String toAscii(String name) {
    for (int i = 0; i < name.length(); i++) {
      if (name.charAt(i) >= 0x80) {
        boolean dot = name.startsWith(".");
        try {
          String ascii = IDN.toASCII(dot ? name.substring(1) : name, IDN.ALLOW_UNASSIGNED);
          return (dot ? "." : "") + ascii.toLowerCase(Locale.ROOT);
        } catch (IllegalArgumentException e) {
          return name;
        }
      }
    }
    return name;
  }

  /** An IP address, on any port (empty) or one port. */
  private record AddressEntry(InetAddress ip, String port) {
    boolean matches(InetAddress candidate, String candidatePort) {
      return ip.equals(candidate) && (port.isEmpty() || port.equals(candidatePort));
    }

    @Override
    public String toString() {
      String a = ip.getHostAddress();
      return port.isEmpty() ? a : (ip instanceof Inet4Address ? a : "[" + a + "]") + ":" + port;
    }
  }

  /** A CIDR range. */
  private record RangeEntry(byte[] network, int bits, String text) {
    static @Nullable RangeEntry parse(String address, String prefix) {
      InetAddress ip = parseIpLiteral(address);
      if (ip == null || prefix.isEmpty() || prefix.length() > 3) {
        return null;
      }
      int bits;
      try {
        bits = Integer.parseInt(prefix);
      } catch (NumberFormatException e) {
        return null;
      }
      byte[] bytes = ip.getAddress();
      if (bits < 0 || bits > bytes.length * 8) {
        return null;
      }
      return new RangeEntry(bytes, bits, address + "/" + prefix);
    }

    boolean contains(InetAddress candidate) {
      byte[] c = candidate.getAddress();
      if (c.length != network.length) {
        return false;
      }
      int full = bits / 8;
      for (int i = 0; i < full; i++) {
        if (c[i] != network[i]) {
          return false;
        }
      }
      int rest = bits % 8;
      if (rest == 0) {
        return true;
      }
      int mask = (0xff << (8 - rest)) & 0xff;
      return (c[full] & mask) == (network[full] & mask);
    }

    @Override
    public String toString() {
      return text;
    }
  }

  /**
   * A domain: {@code suffix} starts with a dot and matches subdomains; {@code includesDomain}
   * also matches the domain itself (the entry had no leading dot).
   */
  private record DomainEntry(String suffix, String port, boolean includesDomain) {
    boolean matches(String host, String candidatePort) {
      boolean hostMatches =
          host.endsWith(suffix) || (includesDomain && host.equals(suffix.substring(1)));
      return hostMatches && (port.isEmpty() || port.equals(candidatePort));
    }

    @Override
    public String toString() {
      String d = includesDomain ? suffix.substring(1) : suffix;
      return port.isEmpty() ? d : d + ":" + port;
    }
  }
}
