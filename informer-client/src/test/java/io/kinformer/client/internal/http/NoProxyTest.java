package io.kinformer.client.internal.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code NO_PROXY} matching, with the rules of Go's {@code httpproxy}. */
class NoProxyTest {

  private static boolean proxied(String noProxy, String host, int port) {
    return NoProxy.parse(noProxy).useProxy(host, port);
  }

  @Test
  void emptyOrUnset_proxiesEveryNonLoopbackHost() {
    assertThat(proxied(null, "kube.example.com", 443)).isTrue();
    assertThat(proxied("", "kube.example.com", 443)).isTrue();
    assertThat(proxied(" , ,", "10.0.0.1", 443)).isTrue();
  }

  @Test
  void exactHost_matchesItselfAndSubdomains_notLookalikes() {
    String list = "example.com";
    assertThat(proxied(list, "example.com", 443)).isFalse();
    assertThat(proxied(list, "kube.example.com", 443)).isFalse();
    assertThat(proxied(list, "a.b.example.com", 6443)).isFalse();
    assertThat(proxied(list, "notexample.com", 443)).isTrue();
    assertThat(proxied(list, "example.com.evil.org", 443)).isTrue();
    assertThat(proxied(list, "example.org", 443)).isTrue();
  }

  @Test
  void leadingDotOrStar_matchesSubdomainsOnly() {
    for (String list : new String[] {".example.com", "*.example.com"}) {
      assertThat(proxied(list, "kube.example.com", 443)).as(list).isFalse();
      assertThat(proxied(list, "a.b.example.com", 443)).as(list).isFalse();
      assertThat(proxied(list, "example.com", 443)).as(list).isTrue();
      assertThat(proxied(list, "notexample.com", 443)).as(list).isTrue();
    }
  }

  @Test
  void matching_ignoresCaseAndSpaces() {
    String list = "  Example.COM , 10.0.0.1 ";
    assertThat(proxied(list, "KUBE.example.com", 443)).isFalse();
    assertThat(proxied(list, "kube.EXAMPLE.com", 443)).isFalse();
    assertThat(proxied(list, "10.0.0.1", 443)).isFalse();
  }

  @Test
  void portInEntry_restrictsItToThatPort() {
    String list = "example.com:6443,10.0.0.1:8080,[fd00::1]:443";
    assertThat(proxied(list, "kube.example.com", 6443)).isFalse();
    assertThat(proxied(list, "kube.example.com", 443)).isTrue();
    assertThat(proxied(list, "10.0.0.1", 8080)).isFalse();
    assertThat(proxied(list, "10.0.0.1", 443)).isTrue();
    assertThat(proxied(list, "[fd00::1]", 443)).isFalse();
    assertThat(proxied(list, "fd00::1", 6443)).isTrue();
  }

  @Test
  void ipAddress_matchesThatAddressOnly_andNeverAName() {
    String list = "10.0.0.1,fd00::1,[fd00::2]";
    assertThat(proxied(list, "10.0.0.1", 443)).isFalse();
    assertThat(proxied(list, "10.0.0.2", 443)).isTrue();
    assertThat(proxied(list, "[fd00::1]", 443)).isFalse();
    assertThat(proxied(list, "fd00:0:0::1", 443)).isFalse(); // same address, other spelling
    assertThat(proxied(list, "fd00::2", 443)).isFalse();
    assertThat(proxied(list, "fd00::3", 443)).isTrue();
    // Names are never resolved: a domain entry does not match an IP and vice versa.
    assertThat(proxied("example.com", "93.184.216.34", 443)).isTrue();
    assertThat(proxied("10.0.0.1", "ten.example.com", 443)).isTrue();
  }

  @Test
  void cidr_matchesEveryAddressInTheRange_onAnyPort() {
    String list = "10.0.0.0/8,192.168.1.0/25,fd00::/16";
    assertThat(proxied(list, "10.255.1.2", 443)).isFalse();
    assertThat(proxied(list, "11.0.0.1", 443)).isTrue();
    assertThat(proxied(list, "192.168.1.127", 6443)).isFalse();
    assertThat(proxied(list, "192.168.1.128", 6443)).isTrue();
    assertThat(proxied(list, "fd00:abcd::1", 443)).isFalse();
    assertThat(proxied(list, "fd01::1", 443)).isTrue();
    assertThat(proxied(list, "kube.example.com", 443)).isTrue();
    assertThat(proxied("0.0.0.0/0", "203.0.113.9", 443)).isFalse();
  }

  @Test
  void star_matchesEverything() {
    assertThat(proxied("*", "kube.example.com", 443)).isFalse();
    assertThat(proxied("*", "10.0.0.1", 80)).isFalse();
    assertThat(proxied("other.org, * ", "fd00::1", 6443)).isFalse();
    // "*" only counts alone; as part of a name it is no wildcard.
    assertThat(proxied("*example.com", "kube.example.com", 443)).isTrue();
  }

  @Test
  void loopback_isNeverProxied_whateverTheList() {
    for (String list : new String[] {null, "", "example.com"}) {
      assertThat(proxied(list, "localhost", 443)).isFalse();
      assertThat(proxied(list, "LOCALHOST", 443)).isFalse();
      assertThat(proxied(list, "127.0.0.1", 6443)).isFalse();
      assertThat(proxied(list, "127.1.2.3", 6443)).isFalse();
      assertThat(proxied(list, "[::1]", 443)).isFalse();
      assertThat(proxied(list, "::1", 443)).isFalse();
    }
    // Only the name "localhost" itself: a subdomain is an ordinary name.
    assertThat(proxied("", "kube.localhost.example", 443)).isTrue();
  }

  @Test
  void malformedEntries_areIgnored_andTheRestStillApplies() {
    String list = "10.0.0.0/99,:8080,[,[fd00::1,.,example.com";
    assertThat(proxied(list, "kube.example.com", 443)).isFalse();
    assertThat(proxied(list, "10.0.0.1", 443)).isTrue();
    assertThat(proxied(list, "other.org", 8080)).isTrue();
  }

  @Test
  void internationalizedNames_matchTheirAsciiForm() {
    assertThat(proxied("bücher.example", "xn--bcher-kva.example", 443)).isFalse();
    assertThat(proxied("xn--bcher-kva.example", "kube.bücher.example", 443)).isFalse();
  }

  @Test
  void ipLiteralParsing_neverTreatsNamesAsAddresses() {
    assertThat(NoProxy.parseIpLiteral("10.0.0.1")).isNotNull();
    assertThat(NoProxy.parseIpLiteral("::1")).isNotNull();
    assertThat(NoProxy.parseIpLiteral("10.0.0.256")).isNull();
    assertThat(NoProxy.parseIpLiteral("10.0.0")).isNull();
    assertThat(NoProxy.parseIpLiteral("cafe")).isNull();
    assertThat(NoProxy.parseIpLiteral("1:2")).isNull();
    assertThat(NoProxy.parseIpLiteral("example.com")).isNull();
  }
}
