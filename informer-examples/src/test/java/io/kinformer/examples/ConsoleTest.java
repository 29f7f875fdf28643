package io.kinformer.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.time.testing.FakeClock;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConsoleTest {

  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final FakeClock clock = new FakeClock();

  private Console console(boolean terminal) {
    return new Console(new PrintStream(bytes, true, StandardCharsets.UTF_8), clock, terminal);
  }

  private String output() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void row_alignsColumnsAndStampsElapsedTime() {
    Console console = console(false);
    clock.advance(Duration.ofMillis(1250));

    console.row("ADDED", "shop/web-0", "node-1 Running");
    console.row("DELETED", "a-much-longer-namespace/and-name", "gone");

    assertThat(output().lines())
        .containsExactly(
            "  +1.25s  ADDED      shop/web-0                         node-1 Running",
            "  +1.25s  DELETED    a-much-longer-namespace/and-name   gone");
  }

  @Test
  void progress_whenNotATerminal_printsNothing() {
    Console console = console(false);

    console.progress("syncing pods: 10 so far");
    console.line("synced");

    assertThat(output()).isEqualTo("synced" + System.lineSeparator());
  }

  @Test
  void progress_onATerminal_isErasedByTheNextLine() {
    Console console = console(true);

    console.progress("syncing pods: 10 so far");
    console.line("synced");

    assertThat(output())
        .isEqualTo(
            "\rsyncing pods: 10 so far\u001b[K\r\u001b[Ksynced" + System.lineSeparator());
  }
}
