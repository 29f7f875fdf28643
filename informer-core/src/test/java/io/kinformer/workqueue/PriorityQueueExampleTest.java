package io.kinformer.workqueue;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.time.testing.FakeClock;
import io.kinformer.workqueue.PriorityQueue.AddOptions;
import io.kinformer.workqueue.PriorityQueue.Prioritized;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The priority-queue example of docs/work-queues.md, run here; the test also checks that the page
 * shows exactly this code.
 */
class PriorityQueueExampleTest {

  @Test
  void example_handsOutByPriorityThenFifo() throws InterruptedException {
    // docs:start priority
    FakeClock clock = new FakeClock();
    PriorityQueue<String> queue =
        PriorityQueue.create(
            RateLimiters.itemExponentialFailure(Duration.ofSeconds(1), Duration.ofMinutes(1)),
            QueueOptions.builder().clockAndScheduler(clock).build());

    queue.add("listed-1", PriorityQueue.LOW_PRIORITY); // from the initial list
    queue.add("listed-2", PriorityQueue.LOW_PRIORITY);
    queue.add("changed"); // a real change: priority 0
    queue.add("listed-2", 0); // changed too: raised to 0, behind "changed"
    queue.add("listed-1", PriorityQueue.LOW_PRIORITY - 1); // lower: no effect
    queue.add("urgent", AddOptions.ofPriority(10).withAfter(Duration.ofSeconds(5)));

    assertThat(queue.getWithPriority()).contains(new Prioritized<>("changed", 0));
    clock.advance(Duration.ofSeconds(5)); // "urgent" is ready now, and goes first
    assertThat(queue.get()).contains("urgent");
    assertThat(queue.get()).contains("listed-2");
    assertThat(queue.getWithPriority())
        .contains(new Prioritized<>("listed-1", PriorityQueue.LOW_PRIORITY));
    // docs:end priority
    queue.shutDown();
  }

  @Test
  void docsPage_showsTheExample() throws IOException {
    String source =
        Files.readString(
            Path.of("src/test/java/io/kinformer/workqueue/PriorityQueueExampleTest.java"),
            StandardCharsets.UTF_8);
    String snippet =
        source.substring(
            source.indexOf('\n', source.indexOf("// docs:start priority")) + 1,
            source.indexOf("    // docs:end priority"));
    String page = Files.readString(Path.of("../docs/work-queues.md"), StandardCharsets.UTF_8);
    String unindented =
        snippet
            .lines()
            .map(line -> line.startsWith("    ") ? line.substring(4) : line)
            .collect(Collectors.joining("\n"));
    assertThat(page).contains("```java\n" + unindented + "\n```");
  }
}
