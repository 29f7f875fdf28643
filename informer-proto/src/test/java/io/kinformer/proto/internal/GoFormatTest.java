package io.kinformer.proto.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class GoFormatTest {

  /** Go's own expectations for time.Duration.String. */
  @ParameterizedTest
  @CsvSource({
      "0, 0s",
      "1, 1ns",
      "-1, -1ns",
      "1100, 1.1µs",
      "2200000, 2.2ms",
      "3300000000, 3.3s",
      "245000000000, 4m5s",
      "245001000000, 4m5.001s",
      "18367001000000, 5h6m7.001s",
      "28800000000001, 8h0m0.000000001s",
      "9223372036854775807, 2562047h47m16.854775807s",
      "-9223372036854775808, -2562047h47m16.854775808s"})
  void durationsAsGoPrintsThem(long nanos, String expected) {
    assertThat(GoFormat.duration(nanos)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({
      "1, 0, false, 1970-01-01T00:00:01Z",
      "1, 999999999, false, 1970-01-01T00:00:01Z",
      "1, 1500, true, 1970-01-01T00:00:01.000001Z",
      "1700000000, 0, true, 2023-11-14T22:13:20.000000Z",
      "-62135596800, 0, false, 0001-01-01T00:00:00Z",
      "253402300799, 0, false, 9999-12-31T23:59:59Z"})
  void timesInRfc3339(long seconds, long nanos, boolean micros, String expected) {
    assertThat(GoFormat.time(seconds, nanos, micros)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"253402300800", "-62167219201", "9223372036854775807"})
  void timesGoCannotWriteAreRejected(long seconds) {
    assertThatThrownBy(() -> GoFormat.time(seconds, 0, false))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
