package io.kinformer.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.kinformer.cache.Keys;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import io.kinformer.testing.Verb;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Nothing is lost: while a writer makes thousands of creates, updates and deletes and a fault
 * injector breaks watches, fails requests, adds latency, compacts history and writes garbage into
 * watch streams, an informer with a fast, a slow and a throwing handler ends, once the faults stop,
 * with a cache and three handler views equal to the server's state (keys and resourceVersions).
 *
 * <p>Scale with {@code -Dkinformer.chaos.ops=N} (default 16000, about 30 s of writes) and replay a failure with {@code
 * -Dkinformer.chaos.seed=S} (the seed is logged at the start of every run).
 */
@Tag("slow")
class ChaosConvergenceTest {

  private static final Logger log = LoggerFactory.getLogger(ChaosConvergenceTest.class);
  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** A handler that replays its calls into a map and checks that versions never go back. */
  static class View implements ResourceEventHandler<ConfigMap> {
    final String name;
    final Map<String, Long> objects = new ConcurrentHashMap<>();
    final List<String> violations = new CopyOnWriteArrayList<>();
    final AtomicInteger calls = new AtomicInteger();
    final AtomicInteger unknownDeletes = new AtomicInteger();
    /** The newest version seen per key; dropped on deletion. */
    private final Map<String, Long> newest = new ConcurrentHashMap<>();

    View(String name) {
      this.name = name;
    }

    private void seen(ConfigMap cm) {
      String key = Keys.metaNamespaceKey(cm);
      long rv = Long.parseLong(cm.getMetadata().getResourceVersion());
      Long before = newest.get(key);
      if (before != null && rv < before) {
        violations.add(name + ": " + key + " went from rv " + before + " back to " + rv);
      }
      newest.put(key, rv);
      objects.put(key, rv);
    }

    @Override
    public void onAdd(ConfigMap obj, boolean isInInitialList) {
      calls.incrementAndGet();
      seen(obj);
    }

    @Override
    public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
      calls.incrementAndGet();
      seen(newObj);
    }

    @Override
    public void onDelete(ConfigMap obj, boolean finalStateUnknown) {
      calls.incrementAndGet();
      String key = Keys.metaNamespaceKey(obj);
      objects.remove(key);
      newest.remove(key);
      if (finalStateUnknown) {
        unknownDeletes.incrementAndGet();
      }
    }
  }

  @Test
  void underFaults_cacheAndEveryHandlerConvergeToTheServer() throws Exception {
    long seed = Long.getLong("kinformer.chaos.seed", System.nanoTime());
    int ops = Integer.getInteger("kinformer.chaos.ops", 16000);
    log.warn("chaos run: seed={} ops={} (replay with -Dkinformer.chaos.seed={})", seed, ops, seed);
    Random random = new Random(seed);

    try (EmbeddedApiServer server =
            EmbeddedApiServer.builder()
                .watchHistorySize(500)
                .bookmarkInterval(Duration.ofMillis(500))
                .start();
        KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()))) {
      View fast = new View("fast");
      View slow =
          new View("slow") {
            @Override
            public void onUpdate(ConfigMap oldObj, ConfigMap newObj) {
              super.onUpdate(oldObj, newObj);
              LockSupport.parkNanos(200_000); // a handler that does real work per event
            }
          };
      // After each failure its delivery pauses a second (client-go): a few failures, so that the
      // run still ends within the settle time.
      AtomicInteger failuresLeft = new AtomicInteger(5);
      View throwing =
          new View("throwing") {
            @Override
            public void onAdd(ConfigMap obj, boolean isInInitialList) {
              super.onAdd(obj, isInInitialList);
              if (obj.getMetadata().getName().hashCode() % 5 == 0
                  && failuresLeft.getAndDecrement() > 0) {
                throw new IllegalStateException("handler bug on " + obj.getMetadata().getName());
              }
            }
          };

      // A fast backoff keeps the run short; the informer's logic is the production one.
      SharedIndexInformer<ConfigMap> informer =
          SharedIndexInformer.builder(
                  "configmaps", client.resources(ConfigMap.class).listerWatcher())
              .backoff(TestBackoffs.fast(seed))
              .pageSize(50)
              .build();
      informer.addEventHandler(fast);
      informer.addEventHandler(slow);
      informer.addEventHandler(throwing);
      informer.start();
      assertThat(informer.awaitSynced(Duration.ofSeconds(30))).isTrue();

      AtomicBoolean writing = new AtomicBoolean(true);
      FaultLog faults = new FaultLog();
      Thread injector = new Thread(() -> injectFaults(server, new Random(seed + 1), writing, faults), "chaos-faults");
      injector.start();
      write(server, random, ops);
      writing.set(false);
      await().until(() -> !injector.isAlive());
      server.faults().reset();
      log.warn("chaos run: faults injected {}", faults);

      Duration settle = Duration.ofSeconds(60);
      await().atMost(settle).until(() -> cacheOf(informer).equals(serverState(server)));
      Map<String, Long> expected = serverState(server);
      for (View v : List.of(fast, slow, throwing)) {
        await().atMost(settle).until(() -> new TreeMap<>(v.objects).equals(expected));
        assertThat(v.violations).as(v.name + " saw versions go back").isEmpty();
      }
      long lists = server.faults().requestCount(Verb.LIST, "configmaps");
      log.warn(
          "chaos run: lists={} watches={} unknownDeletes={} handlerCalls={}",
          lists,
          server.faults().requestCount(Verb.WATCH, "configmaps"),
          fast.unknownDeletes.get(),
          fast.calls.get());
      // Every list beyond the first is explained by a compaction (a relist, perhaps refused once
      // more before a consistent list), an injected list failure, a continue token expired by a
      // compaction during a paged relist, or garbage on the watch (a relist, as client-go; refused
      // once more if a compaction came too).
      assertThat(lists)
          .isLessThanOrEqualTo(
              1 + 3L * faults.compactions.get() + faults.listFailures.get()
                  + 2L * faults.garbage.get());
      informer.close();
    }
  }

  private static final class FaultLog {
    final AtomicInteger closes = new AtomicInteger();
    final AtomicInteger resets = new AtomicInteger();
    final AtomicInteger compactions = new AtomicInteger();
    final AtomicInteger listFailures = new AtomicInteger();
    final AtomicInteger watchFailures = new AtomicInteger();
    final AtomicInteger garbage = new AtomicInteger();
    final AtomicInteger latencies = new AtomicInteger();
    final AtomicInteger quiet = new AtomicInteger();

    @Override
    public String toString() {
      return "closes=" + closes + " resets=" + resets + " compactions=" + compactions
          + " listFailures=" + listFailures + " watchFailures=" + watchFailures
          + " garbage=" + garbage + " latencies=" + latencies + " quietRounds=" + quiet;
    }
  }

  private static void injectFaults(
      EmbeddedApiServer server, Random random, AtomicBoolean writing, FaultLog log) {
    var f = server.faults();
    while (writing.get()) {
      // Weighted so that the watch is up often enough for live events to flow between faults:
      // failure rules queue up until the informer consumes them, and a 429 costs a whole second.
      int dice = random.nextInt(60);
      if (dice < 6) {
        f.closeAllWatches();
        log.closes.incrementAndGet();
      } else if (dice < 12) {
        f.resetAllWatches();
        log.resets.incrementAndGet();
      } else if (dice < 16) {
        f.compactHistory();
        log.compactions.incrementAndGet();
      } else if (dice < 18) {
        f.failNext(Verb.LIST, "configmaps", 1, 500);
        log.listFailures.incrementAndGet();
      } else if (dice < 19) {
        f.failNextWithRetryAfter(Verb.WATCH, "configmaps", 1, 429, Duration.ofSeconds(1));
        log.watchFailures.incrementAndGet();
      } else if (dice < 21) {
        f.failNext(Verb.WATCH, "configmaps", 1, 500);
        log.watchFailures.incrementAndGet();
      } else if (dice < 26) {
        f.writeToWatches(
            "configmaps",
            random.nextBoolean()
                ? "{\"type\":\"ADDED\",\"object\":{nope\n"
                : "{\"type\":\"EXPLODED\",\"object\":{}}\n");
        log.garbage.incrementAndGet();
      } else if (dice < 30) {
        f.latency(Duration.ofMillis(random.nextInt(30)));
        log.latencies.incrementAndGet();
      } else {
        log.quiet.incrementAndGet(); // a quiet spell: no fault this round
      }
      LockSupport.parkNanos(Duration.ofMillis(20 + random.nextInt(80)).toNanos()); // fault pacing
    }
    f.latency(Duration.ZERO);
  }

  private static void write(EmbeddedApiServer server, Random random, int ops) {
    List<String> namespaces = List.of("default", "kube-system", "kube-public");
    int objects = 400;
    Map<String, Boolean> exists = new ConcurrentHashMap<>();
    for (int i = 0; i < ops; i++) {
      String ns = namespaces.get(random.nextInt(namespaces.size()));
      String name = "cm-" + random.nextInt(objects);
      String key = ns + "/" + name;
      String json =
          "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\""
              + name + "\",\"namespace\":\"" + ns + "\"},\"data\":{\"i\":\"" + i + "\"}}";
      try {
        if (!exists.containsKey(key)) {
          server.create(json);
          exists.put(key, true);
        } else if (random.nextInt(4) == 0) {
          server.delete("v1", "ConfigMap", ns, name);
          exists.remove(key);
        } else {
          server.update(json);
        }
      } catch (RuntimeException e) {
        throw new AssertionError("writer failed at op " + i + " on " + key, e);
      }
      if (i % 4 == 0) {
        LockSupport.parkNanos(Duration.ofMillis(5).toNanos()); // spread writes over the faults
      }
    }
  }

  private static Map<String, Long> serverState(EmbeddedApiServer server) {
    Map<String, Long> m = new TreeMap<>();
    for (String json : server.list("v1", "ConfigMap", null)) {
      JsonNode meta = JSON.readTree(json).path("metadata");
      m.put(
          meta.path("namespace").asString() + "/" + meta.path("name").asString(),
          Long.parseLong(meta.path("resourceVersion").asString()));
    }
    // The server keeps system config maps too; the informer sees them like any other.
    return m;
  }

  private static Map<String, Long> cacheOf(SharedIndexInformer<ConfigMap> informer) {
    Map<String, Long> m = new TreeMap<>();
    for (ConfigMap cm : informer.getIndexer().list()) {
      m.put(Keys.metaNamespaceKey(cm), Long.parseLong(cm.getMetadata().getResourceVersion()));
    }
    return m;
  }
}
