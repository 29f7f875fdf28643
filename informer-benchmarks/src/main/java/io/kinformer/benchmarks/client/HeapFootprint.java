package io.kinformer.benchmarks.client;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.kinformer.benchmarks.Pods;
import io.kinformer.client.internal.codec.Codecs;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * Where the bytes of a decoded pod go: decodes {@code n} realistic pods ({@link Pods}) with plain
 * Jackson and with kinformer's codec mappers (REST: pooled strings; cache: the informers'), then
 * (1) walks each object graph and sums shallow sizes by category, with a layout model read from
 * {@code sun.misc.Unsafe} field offsets (the same idea as JOL, which is not available here), (2)
 * measures retained heap with {@code System.gc()} and {@code MemoryMXBean} before and after
 * holding the pods, and (3) the decoding CPU time per pod of each mapper. It also checks that each
 * mapper decodes pods equal to plain Jackson's.
 *
 * <p>Run: {@code java -cp informer-benchmarks/target/benchmarks.jar
 * io.kinformer.benchmarks.client.HeapFootprint [n]} (n defaults to 10,000).
 *
 * <p>Thread safety: a main program.
 */
public final class HeapFootprint {

  private static final sun.misc.Unsafe U = unsafe();
  private static final Map<Class<?>, long[]> LAYOUT = new HashMap<>();

  private HeapFootprint() {}

  /** Prints the breakdown and the retained heap per pod of each decoder. */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    JsonMapper writer = Pods.mapper();
    List<byte[]> bytes = new ArrayList<>(n);
    long total = 0;
    for (int i = 0; i < n; i++) {
      byte[] b = writer.writeValueAsBytes(Pods.pod(i, Pods.FIRST_RESOURCE_VERSION + i));
      bytes.add(b);
      total += b.length;
    }
    System.out.printf("%d pods, %d JSON bytes each on average%n", n, total / n);
    Map<String, ObjectReader> readers = new java.util.LinkedHashMap<>();
    readers.put("jackson", JsonMapper.builder()
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build().readerFor(Pod.class));
    readers.put("kinformer", Codecs.newMapper().readerFor(Pod.class));
    readers.put("kinformer-cache", Codecs.newCacheMapper().readerFor(Pod.class));
    for (Map.Entry<String, ObjectReader> e : readers.entrySet()) {
      // The walk first: equals() would leave cached entry-set views in every map it compares.
      breakdown(e.getKey(), decode(e.getValue(), bytes.subList(0, Math.min(n, 2000))));
      if (!decode(e.getValue(), bytes).equals(decode(readers.get("jackson"), bytes))) {
        throw new IllegalStateException(e.getKey() + " decodes differently from plain Jackson");
      }
    }
    for (int round = 0; round < 2; round++) {
      for (Map.Entry<String, ObjectReader> e : readers.entrySet()) {
        retained(e.getKey(), e.getValue(), bytes);
      }
    }
    decodeCpu(readers, bytes);
  }

  /**
   * Decode cost per pod in thread CPU time (less disturbed than wall time on a shared machine):
   * 15 alternating rounds over all pods per decoder, the first 5 discarded as warm-up; median.
   */
  private static void decodeCpu(Map<String, ObjectReader> readers, List<byte[]> bytes) {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<String, List<Double>> perPod = new java.util.LinkedHashMap<>();
    for (int round = 0; round < 15; round++) {
      for (Map.Entry<String, ObjectReader> e : readers.entrySet()) {
        long start = threads.getCurrentThreadCpuTime();
        List<Pod> pods = decode(e.getValue(), bytes);
        long cpu = threads.getCurrentThreadCpuTime() - start;
        if (round >= 5) {
          perPod.computeIfAbsent(e.getKey(), k -> new ArrayList<>())
              .add(cpu / 1000.0 / pods.size());
        }
      }
    }
    for (Map.Entry<String, List<Double>> e : perPod.entrySet()) {
      List<Double> v = new ArrayList<>(e.getValue());
      v.sort(null);
      System.out.printf("decode CPU %-16s median %.2f µs/pod (min %.2f, max %.2f)%n", e.getKey(),
          v.get(v.size() / 2), v.get(0), v.get(v.size() - 1));
    }
  }

  private static List<Pod> decode(ObjectReader reader, List<byte[]> bytes) {
    List<Pod> pods = new ArrayList<>(bytes.size());
    for (byte[] b : bytes) {
      pods.add(reader.readValue(b));
    }
    return pods;
  }

  private static void retained(String name, ObjectReader reader, List<byte[]> bytes)
      throws InterruptedException {
    long before = usedAfterGc();
    List<Pod> pods = decode(reader, bytes);
    long after = usedAfterGc();
    System.out.printf("retained %-16s %,8d B/pod (%d pods)%n", name,
        (after - before) / pods.size(), pods.size());
  }

  private static long usedAfterGc() throws InterruptedException {
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  /** Sums shallow sizes by category over the graph of {@code roots}, per root. */
  private static void breakdown(String name, List<Pod> roots) {
    Map<String, long[]> byCategory = new TreeMap<>();
    Set<Object> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
    Set<String> stringValues = new HashSet<>();
    long[] stringDup = new long[2];
    Deque<Object[]> stack = new ArrayDeque<>();
    for (Object root : roots) {
      stack.push(new Object[] {root, ""});
    }
    while (!stack.isEmpty()) {
      Object[] top = stack.pop();
      Object o = top[0];
      String context = (String) top[1];
      if (o == null || o instanceof Class || o instanceof Enum<?> || !seen.add(o)) {
        continue;
      }
      if (o instanceof FieldsV1) {
        context = "fieldsV1/";
      } else if (o instanceof Quantity) {
        context = "quantity/";
      }
      long size = shallow(o);
      String category = context + category(o);
      if (o instanceof String s) {
        long full = size + shallow(stringValue(s));
        seen.add(stringValue(s));
        if (!stringValues.add(s)) {
          stringDup[0]++;
          stringDup[1] += full;
        }
        add(byCategory, category, full);
        continue;
      }
      add(byCategory, category, size);
      Class<?> c = o.getClass();
      if (c.isArray()) {
        if (!c.getComponentType().isPrimitive()) {
          for (int i = 0, len = Array.getLength(o); i < len; i++) {
            stack.push(new Object[] {Array.get(o, i), context});
          }
        }
        continue;
      }
      for (Class<?> k = c; k != null; k = k.getSuperclass()) {
        for (Field f : k.getDeclaredFields()) {
          if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive()) {
            continue;
          }
          stack.push(new Object[] {U.getObject(o, U.objectFieldOffset(f)), context});
        }
      }
    }
    int n = roots.size();
    long sum = 0;
    System.out.printf("%n== %s: shallow sizes per pod (graph walk over %d pods)%n", name, n);
    List<Map.Entry<String, long[]>> rows = new ArrayList<>(byCategory.entrySet());
    rows.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
    for (Map.Entry<String, long[]> r : rows) {
      sum += r.getValue()[1];
      if (r.getValue()[1] / n >= 8) {
        System.out.printf("  %-58s %7.1f objs %,7d B%n", r.getKey(), r.getValue()[0] / (double) n,
            r.getValue()[1] / n);
      }
    }
    System.out.printf("  %-58s %15s %,7d B%n", "TOTAL", "", sum / n);
    System.out.printf("  duplicate strings (equal to one already seen): %.1f per pod, %,d B/pod%n",
        stringDup[0] / (double) n, stringDup[1] / n);
  }

  private static void add(Map<String, long[]> m, String category, long size) {
    long[] v = m.computeIfAbsent(category, k -> new long[2]);
    v[0]++;
    v[1] += size;
  }

  private static String category(Object o) {
    String simple = o.getClass().getName().replace("io.fabric8.kubernetes.api.model.", "")
        .replace("java.util.", "").replace("java.lang.", "");
    if (o instanceof Map<?, ?> m) {
      return simple + (m.isEmpty() ? " (empty)" : "");
    }
    if (o instanceof Collection<?> c) {
      return simple + (c.isEmpty() ? " (empty)" : "");
    }
    if (o.getClass().isArray()) {
      return o.getClass().getComponentType().getSimpleName() + "[]";
    }
    if (o.getClass().getName().startsWith("io.fabric8")) {
      return "fabric8 model objects (shallow)";
    }
    return simple;
  }

  private static Object stringValue(String s) {
    try {
      return U.getObject(s, U.objectFieldOffset(String.class.getDeclaredField("value")));
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Shallow size: the end of the last field (or array element), rounded up to 8. */
  private static long shallow(Object o) {
    Class<?> c = o.getClass();
    if (c.isArray()) {
      long size = U.arrayBaseOffset(c) + (long) U.arrayIndexScale(c) * Array.getLength(o);
      return (size + 7) & ~7L;
    }
    return LAYOUT.computeIfAbsent(c, HeapFootprint::layout)[0];
  }

  private static long[] layout(Class<?> c) {
    long end = 12; // mark word + compressed class pointer
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      for (Field f : k.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers())) {
          continue;
        }
        long off = U.objectFieldOffset(f);
        end = Math.max(end, off + width(f.getType()));
      }
    }
    return new long[] {(end + 7) & ~7L};
  }

  private static int width(Class<?> t) {
    if (t == long.class || t == double.class) {
      return 8;
    }
    if (t == int.class || t == float.class) {
      return 4;
    }
    if (t == short.class || t == char.class) {
      return 2;
    }
    if (t == byte.class || t == boolean.class) {
      return 1;
    }
    return U.arrayIndexScale(Object[].class); // a reference: 4 with compressed oops
  }

  private static sun.misc.Unsafe unsafe() {
    try {
      Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
      f.setAccessible(true);
      return (sun.misc.Unsafe) f.get(null);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
