package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The byte budget of {@link CodecTailStream} (its excerpts are covered by the codec tests). */
class CodecTailStreamTest {

  private static CodecTailStream over(String text) {
    return new CodecTailStream(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void read_withoutLimit_readsEverything() throws IOException {
    CodecTailStream in = over("0123456789");

    assertThat(in.readAllBytes()).hasSize(10);
    assertThat(in.limitExceeded()).isFalse();
  }

  @Test
  void read_whenBudgetRunsOut_cutsTheReadThenRefusesTheNext() throws IOException {
    CodecTailStream in = over("0123456789");
    in.limitFrom(0, 4);
    byte[] buf = new byte[10];

    assertThat(in.read(buf, 0, 10)).isEqualTo(4);
    assertThat(in.limitExceeded()).isFalse();
    assertThatThrownBy(() -> in.read(buf, 0, 10))
        .isInstanceOf(CodecTailStream.LimitExceededException.class)
        .hasMessageContaining("at byte 4");
    assertThat(in.limitExceeded()).isTrue();
    assertThat(in.position()).isEqualTo(4);
  }

  @Test
  void read_singleBytes_areCountedAgainstTheBudget() throws IOException {
    CodecTailStream in = over("abc");
    in.limitFrom(0, 2);

    assertThat(in.read()).isEqualTo('a');
    assertThat(in.read()).isEqualTo('b');
    assertThatThrownBy(in::read).isInstanceOf(CodecTailStream.LimitExceededException.class);
  }

  @Test
  void limitFrom_aLaterStart_givesANewBudget() throws IOException {
    CodecTailStream in = over("0123456789");
    in.limitFrom(0, 4);
    byte[] buf = new byte[10];
    assertThat(in.read(buf, 0, 10)).isEqualTo(4);

    in.limitFrom(3, 4); // the unit started at byte 3: bytes 3..6 are its budget

    assertThat(in.read(buf, 0, 10)).isEqualTo(3);
    assertThatThrownBy(() -> in.read(buf, 0, 10))
        .isInstanceOf(CodecTailStream.LimitExceededException.class);
  }

  @Test
  void limitFrom_negativeStart_countsFromWhatWasRead() throws IOException {
    CodecTailStream in = over("0123456789");
    byte[] buf = new byte[10];
    assertThat(in.read(buf, 0, 3)).isEqualTo(3);

    in.limitFrom(-1, 5);

    assertThat(in.read(buf, 0, 10)).isEqualTo(5);
    assertThatThrownBy(() -> in.read(buf, 0, 10))
        .isInstanceOf(CodecTailStream.LimitExceededException.class);
  }

  @Test
  void read_ofZeroBytes_isNeverRefused() throws IOException {
    CodecTailStream in = over("ab");
    in.limitFrom(0, 1);
    assertThat(in.read()).isEqualTo('a');

    assertThat(in.read(new byte[4], 0, 0)).isZero();
    assertThat(in.limitExceeded()).isFalse();
  }

  @Test
  void describeBytes_namesWholeMebibytes() {
    assertThat(CodecTailStream.describeBytes(64L * 1024 * 1024))
        .isEqualTo("67108864 bytes (64 MiB)");
    assertThat(CodecTailStream.describeBytes(100)).isEqualTo("100 bytes");
  }
}
