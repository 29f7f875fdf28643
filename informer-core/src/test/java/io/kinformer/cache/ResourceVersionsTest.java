package io.kinformer.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ResourceVersionsTest {

  @ParameterizedTest(name = "{0} vs {1}")
  @CsvSource({
    "1, 1, 0",
    "1, 2, -1",
    "9, 10, -1",
    "100, 99, 1",
    "123456789012345678901234567890, 123456789012345678901234567891, -1",
    "99999999999999999999, 100000000000000000000, -1",
    "0, 1, -1"
  })
  void compare_ordersAsIntegers_evenBeyondALong(String a, String b, int sign) {
    assertThat(Integer.signum(ResourceVersions.compare(a, b))).isEqualTo(sign);
    assertThat(Integer.signum(ResourceVersions.compare(b, a))).isEqualTo(-sign);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "01", "12a", "-1", "1.5", " 1", "abc"})
  void compare_refusesWhatIsNotAServersIntegerVersion_namingIt(String rv) {
    assertThat(ResourceVersions.isComparable(rv)).isFalse();
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ResourceVersions.compare(rv, "1"))
        .withMessageContaining("\"" + rv + "\" cannot be compared");
  }
}
