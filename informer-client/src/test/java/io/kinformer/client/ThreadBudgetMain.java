package io.kinformer.client;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.kinformer.cache.ResourceEventHandler;
import io.kinformer.cache.SharedIndexInformer;
import io.kinformer.testing.EmbeddedApiServer;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Counts the threads informers add to a process that has made no other HTTP call: run in a JVM of
 * its own by {@link ThreadBudgetTest}, since OkHttp's and okio's helper threads are process-wide.
 * Prints one line per stage (after the first informer synced and delivered a burst, after a second
 * synced, after eight more synced), {@code <stage> <name>,<name>,...}, naming the threads alive
 * then that were not before the first informer (the embedded server's own threads left out).
 *
 * <p>Arguments: {@code tls} ({@code true}/{@code false}) and the number of handlers per informer.
 */
final class ThreadBudgetMain {

  /** Appended to the name of a thread that waits in a pool for work (see {@link #idleInPool}). */
  static final String IDLE = " (idle in a pool)";

  private static final int EVENTS = 200;

  private ThreadBudgetMain() {}

  public static void main(String[] args) throws Exception {
    boolean tls = Boolean.parseBoolean(args[0]);
    int handlers = Integer.parseInt(args[1]);
    try (EmbeddedApiServer server = EmbeddedApiServer.builder().tls(tls).start()) {
      for (int i = 0; i < 5; i++) {
        server.create(configMap("seed-" + i));
        server.create(
            new PodBuilder()
                .withNewMetadata()
                .withNamespace("default")
                .withName("pod-" + i)
                .endMetadata()
                .build());
      }
      Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
      try (KubeClient client = KubeClient.create(KubeConfig.load(server.kubeConfig()));
          SharedInformerFactory factory = SharedInformerFactory.builder(client).build()) {
        SharedIndexInformer<ConfigMap> configMaps = factory.informerFor(ConfigMap.class);
        CountDownLatch seen = new CountDownLatch(handlers * (5 + EVENTS));
        for (int h = 0; h < handlers; h++) {
          configMaps.addEventHandler(
              new ResourceEventHandler<ConfigMap>() {
                @Override
                public void onAdd(ConfigMap obj, boolean isInInitialList) {
                  seen.countDown();
                }
              });
        }
        factory.start();
        require(factory.waitForCacheSync(Duration.ofSeconds(30)), "configmaps synced");
        for (int i = 0; i < EVENTS; i++) {
          server.create(configMap("event-" + i));
        }
        require(seen.await(30, TimeUnit.SECONDS), "every add delivered");
        print("first", before);

        SharedIndexInformer<Pod> pods = factory.informerFor(Pod.class);
        for (int h = 0; h < handlers; h++) {
          pods.addEventHandler(new ResourceEventHandler<Pod>() {});
        }
        factory.start();
        require(factory.waitForCacheSync(Duration.ofSeconds(30)), "pods synced");
        print("second", before);

        for (int i = 0; i < 8; i++) {
          factory
              .informerFor(ConfigMap.class, SharedInformerFactory.InformerOptions.inNamespace("ns-" + i))
              .addEventHandler(new ResourceEventHandler<ConfigMap>() {});
        }
        factory.start();
        require(factory.waitForCacheSync(Duration.ofSeconds(30)), "ten informers synced");
        print("tenth", before);
      }
    }
  }

  private static ConfigMap configMap(String name) {
    return new ConfigMapBuilder()
        .withNewMetadata()
        .withNamespace("default")
        .withName(name)
        .endMetadata()
        .build();
  }

  private static void require(boolean condition, String what) {
    if (!condition) {
      throw new IllegalStateException("timed out: " + what);
    }
  }

  private static void print(String stage, Set<Thread> before) {
    Map<Thread, StackTraceElement[]> all = Thread.getAllStackTraces();
    System.out.println(
        stage
            + " "
            + all.entrySet().stream()
                .filter(e -> !before.contains(e.getKey()) && e.getKey().isAlive())
                .filter(e -> !e.getKey().getName().startsWith("kinformer-apiserver"))
                .map(e -> e.getKey().getName() + (idleInPool(e.getValue()) ? IDLE : ""))
                .sorted()
                .collect(Collectors.joining(",")));
  }

  /**
   * Whether a thread waits for a task in a {@link java.util.concurrent.ThreadPoolExecutor} that
   * hands tasks over through a {@link java.util.concurrent.SynchronousQueue}: such a thread ends by
   * itself after the pool's keep-alive (OkHttp's task runner: 60 s). A scheduled pool's thread
   * waiting for its next task does not count.
   */
  private static boolean idleInPool(StackTraceElement[] stack) {
    boolean inGetTask = false;
    boolean onHandOff = false;
    for (StackTraceElement frame : stack) {
      String c = frame.getClassName();
      inGetTask |= c.equals("java.util.concurrent.ThreadPoolExecutor")
          && frame.getMethodName().equals("getTask");
      onHandOff |= c.startsWith("java.util.concurrent.SynchronousQueue");
    }
    return inGetTask && onHandOff;
  }
}
