package io.kinformer.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.cache.WatchEventType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/** The MVCC store on its own: RVs, past snapshots by undo, the history window, fan-out. */
class StoreTest {

  private static final ServedResource CM = Registry.builtIns().stream()
      .filter(t -> t.plural().equals("configmaps")).findFirst().orElseThrow();

  private final Store store = new Store(3, 0);

  StoreTest() {
    store.register(CM);
  }

  private static ObjectNode cm(String name, String value) {
    ObjectNode o = Json.MAPPER.createObjectNode();
    o.putObject("metadata").put("name", name).put("namespace", "ns");
    o.putObject("data").put("k", value);
    return o;
  }

  private StoredObject put(String name, String value) {
    return store.write(CM, "ns/" + name, txn -> txn.put(cm(name, value)));
  }

  private static List<String> values(Store.Snapshot s) {
    List<String> out = new ArrayList<>();
    for (StoredObject o : s.items()) {
      out.add(o.name + "=" + o.tree().path("data").path("k").asString());
    }
    return out;
  }

  @Test
  void writes_getIncreasingRvs_stampedIntoTheObject() {
    StoredObject a = put("a", "1");
    StoredObject b = put("b", "1");
    assertThat(b.rv).isEqualTo(a.rv + 1).isEqualTo(store.currentRv());
    assertThat(b.tree().path("metadata").path("resourceVersion").asString())
        .isEqualTo(Long.toString(b.rv));
    assertThat(new String(b.json, 0, b.bodyOffset, java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",");
  }

  @Test
  void snapshot_atAPastRv_undoesLaterChanges() {
    put("a", "1");
    long at = put("b", "1").rv;
    put("a", "2");
    store.write(CM, "ns/b", Store.Txn::delete);
    assertThat(values(store.snapshot(CM, "ns", null, at))).containsExactly("a=1", "b=1");
    assertThat(values(store.snapshot(CM, "ns", null, -1))).containsExactly("a=2");
    assertThat(values(store.snapshot(CM, "ns", "ns/a", at))).containsExactly("b=1");
    assertThat(values(store.snapshot(CM, "ns", "a", at))).containsExactly("a=1", "b=1");
    assertThat(values(store.snapshot(CM, "ns", "zz", at))).isEmpty();
  }

  @Test
  void historyWindow_expiresOldRvs_andCompactionExpiresAll() {
    long first = put("a", "1").rv;
    put("a", "2");
    put("a", "3");
    long last = put("a", "4").rv;
    assertThat(store.snapshot(CM, "ns", null, first - 1)).isNull();
    assertThat(store.snapshot(CM, "ns", null, first)).isNotNull();
    store.compact();
    assertThat(store.snapshot(CM, "ns", null, last - 1)).isNull();
    assertThat(store.snapshot(CM, "ns", null, last)).isNotNull();
  }

  @Test
  void watch_fromRv_replaysLaterEvents_thenReceivesLiveOnes() {
    long from = put("a", "1").rv;
    put("a", "2");
    List<WatchItem> live = new ArrayList<>();
    WatchSink sink = new WatchSink() {
      @Override
      public Filter filter() {
        return Filter.namespaceOnly("ns");
      }

      @Override
      public void deliver(WatchItem item) {
        live.add(item);
      }
    };
    Store.WatchStart start = store.watch(CM, sink, false, from);
    assertThat(start.replay()).extracting(i -> i.type).containsExactly(WatchEventType.MODIFIED);
    store.write(CM, "ns/a", Store.Txn::delete);
    assertThat(live).extracting(i -> i.type).containsExactly(WatchEventType.DELETED);
    assertThat(live.get(0).object.tree().path("data").path("k").asString()).isEqualTo("2");
    store.unwatch(CM, sink);
    put("b", "1");
    assertThat(live).hasSize(1);
  }

  @Test
  void aWatcherThatFails_doesNotFailTheStoredWrite_andIsEnded() {
    List<WatchItem> healthy = new ArrayList<>();
    List<WatchItem> broken = new ArrayList<>();
    store.watch(CM, new WatchSink() {
      @Override
      public Filter filter() {
        return Filter.namespaceOnly("ns");
      }

      @Override
      public void deliver(WatchItem item) {
        if (item.kind == WatchItem.Kind.EVENT) {
          throw new IllegalStateException("cannot take it");
        }
        broken.add(item);
      }
    }, false, -1);
    store.watch(CM, new WatchSink() {
      @Override
      public Filter filter() {
        return Filter.namespaceOnly("ns");
      }

      @Override
      public void deliver(WatchItem item) {
        healthy.add(item);
      }
    }, false, -1);
    java.io.PrintStream stderr = System.err;
    java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
    StoredObject a;
    System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      a = put("a", "1");
    } finally {
      System.setErr(stderr);
    }
    assertThat(logged.toString(java.nio.charset.StandardCharsets.UTF_8))
        .contains("ending a watch on configmaps").contains("cannot take it");
    assertThat(a.rv).isEqualTo(store.currentRv());
    assertThat(store.get(CM, "ns/a")).isNotNull();
    assertThat(broken).containsExactly(WatchItem.END);
    assertThat(healthy).extracting(i -> i.type).containsExactly(WatchEventType.ADDED);
  }
}
