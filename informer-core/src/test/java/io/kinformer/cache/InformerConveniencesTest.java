package io.kinformer.cache;

import static io.kinformer.cache.TestPods.pod;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.kinformer.cache.testing.FakeListerWatcher;
import io.kinformer.time.testing.FakeClock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link SharedIndexInformer#lister()}, {@link SharedIndexInformer#addIndexer}, and a backoff
 * policy shared by informers of one builder.
 */
class InformerConveniencesTest {

  @Test
  void lister_andOneIndex_readTheInformersCache() {
    FakeListerWatcher<Pod> source = TestPods.fakeSource();
    Pod web = pod("ns", "web-0");
    web.getMetadata().setLabels(Map.of("app", "web"));
    source.add(web);
    source.add(pod("other", "db-0"));
    try (SteppedInformer<Pod> i = new SteppedInformer<>("conveniences", source, new FakeClock())) {
      i.informer.addIndexer("byName", p -> List.of(p.getMetadata().getName()));
      i.start().settle();

      Lister<Pod> lister = i.informer.lister();
      assertThat(lister.namespace("ns").get("web-0")).containsSame(i.informer.getIndexer().getByKey("ns/web-0").orElseThrow());
      assertThat(lister.list(LabelSelector.parse("app=web"))).extracting(p -> p.getMetadata().getName()).containsExactly("web-0");
      assertThat(i.informer.getIndexer().byIndex("byName", "db-0")).hasSize(1);
    }
  }

  @Test
  void informersOfOneBuilder_eachGetABackoffOfTheirOwn_fromItsPolicy() {
    FakeClock clock = new FakeClock();
    java.util.concurrent.atomic.AtomicInteger made = new java.util.concurrent.atomic.AtomicInteger();
    io.kinformer.time.Backoff.Policy policy =
        (c, random) -> {
          made.incrementAndGet();
          return io.kinformer.time.Backoff.clientGoDefault(c, random);
        };
    SharedIndexInformer.Builder<Pod> b =
        SharedIndexInformer.builder("policy", TestPods.fakeSource())
            .clock(clock)
            .scheduler(clock)
            .reflectorExecutor(loop -> {})
            .backoff(policy);
    try (SharedIndexInformer<Pod> one = b.build();
        SharedIndexInformer<Pod> two = b.build()) {
      one.start();
      two.start();
      assertThat(made).hasValue(2);
    }
  }
}
