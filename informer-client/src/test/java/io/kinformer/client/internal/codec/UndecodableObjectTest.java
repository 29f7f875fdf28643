package io.kinformer.client.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.kinformer.cache.InformerException;
import io.kinformer.cache.ListResult;
import io.kinformer.cache.WatchEvent;
import io.kinformer.cache.WatchEventType;
import io.kinformer.client.LogCapture;
import io.kinformer.client.ResourceType;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.ObjectReader;

/**
 * An object that does not bind to its model class (a field of the wrong type) is skipped with a
 * WARN naming its key and the field, and counted; the other objects of the list or stream are
 * decoded as if it were not there.
 */
class UndecodableObjectTest {

  @RegisterExtension final LogCapture log = new LogCapture();

  private static final ObjectReader READER = Codecs.newCacheMapper(new StringPool()).reader();
  private static final ResourceType<Pod> PODS = ResourceType.of(Pod.class);
  private static final String WHAT = "GET http://test/api/v1/pods";

  private final AtomicInteger counted = new AtomicInteger();
  private final UndecodableObjects undecodable =
      new UndecodableObjects("v1/pods", counted::incrementAndGet);

  private static String pod(String name, String port) {
    return "{\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"ns\",\"resourceVersion\":\"7\"},"
        + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\","
        + "\"ports\":[{\"containerPort\":" + port + "}]}]},\"status\":{\"phase\":\"Running\"}}";
  }

  private static String list(String... items) {
    return "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"9\"},"
        + "\"items\":[" + String.join(",", items) + "]}";
  }

  private static InputStream stream(String s) {
    return new ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
  }

  private static List<String> names(List<? extends HasMetadata> objects) {
    return objects.stream().map(o -> o.getMetadata().getName()).toList();
  }

  @Test
  void list_itemWithAFieldOfTheWrongType_isSkippedAndTheOthersAreKept() {
    ListResult<Pod> page = new ListCodec<>(READER, PODS, undecodable)
        .decode(stream(list(pod("a", "80"), pod("b", "\"http\""), pod("c", "81"))), WHAT);

    assertThat(names(page.items())).containsExactly("a", "c");
    assertThat(page.items().get(1).getKind()).isEqualTo("Pod");
    assertThat(page.items().get(1).getSpec().getContainers().get(0).getPorts().get(0)
        .getContainerPort()).isEqualTo(81);
    assertThat(page.resourceVersion()).isEqualTo("9");
    assertThat(counted).hasValue(1);
    assertThat(log.text())
        .contains("WARN")
        .contains("v1/pods: skipped Pod ns/b")
        .contains("spec.containers[0].ports[0].containerPort")
        .contains(Pod.class.getName())
        .contains(WHAT);
  }

  @Test
  void list_objectWhereAnArrayBelongs_isSkipped() {
    String bad = "{\"metadata\":{\"name\":\"b\",\"namespace\":\"ns\"},"
        + "\"spec\":{\"containers\":{\"name\":\"not-a-list\",\"deep\":{\"x\":[1,{\"y\":2}]}}},"
        + "\"status\":{}}";

    ListResult<Pod> page = new ListCodec<>(READER, PODS, undecodable)
        .decode(stream(list(pod("a", "80"), bad, pod("c", "81"))), WHAT);

    assertThat(names(page.items())).containsExactly("a", "c");
    assertThat(log.text()).contains("skipped Pod ns/b").contains("spec.containers");
  }

  @Test
  void list_metadataAfterTheBadField_stillNamesTheObject() {
    String bad = "{\"spec\":{\"containers\":[{\"name\":\"c\",\"ports\":[{\"containerPort\":\"x\"}]}]},"
        + "\"metadata\":{\"name\":\"late\",\"namespace\":\"ns\"}}";

    ListResult<Pod> page = new ListCodec<>(READER, PODS, undecodable)
        .decode(stream(list(bad, pod("c", "81"))), WHAT);

    assertThat(names(page.items())).containsExactly("c");
    assertThat(log.text()).contains("skipped Pod ns/late");
  }

  @Test
  void list_manyBadItems_logsTheFirstFewAndCountsAll() {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      items.add(pod("bad-" + i, "\"p\""));
    }
    items.add(pod("good", "80"));

    ListResult<Pod> page = new ListCodec<>(READER, PODS, undecodable)
        .decode(stream(list(items.toArray(String[]::new))), WHAT);

    assertThat(names(page.items())).containsExactly("good");
    assertThat(counted).hasValue(25);
    assertThat(undecodable.count()).isEqualTo(25);
    assertThat(log.text().lines().filter(l -> l.contains("skipped Pod ns/bad-")))
        .hasSize(UndecodableObjects.LOGGED_PER_RESPONSE);
    assertThat(log.text()).contains("skipped 15 more Pod objects");
  }

  @Test
  void list_brokenJson_stillFailsTheWholeList() {
    String broken = list(pod("a", "80")).replace("\"containerPort\":80", "\"containerPort\":8 0");

    assertThatThrownBy(() -> new ListCodec<>(READER, PODS, undecodable).decode(stream(broken), WHAT))
        .isInstanceOf(InformerException.class)
        .hasMessageContaining("malformed list response");
    assertThat(counted).hasValue(0);
  }

  private WatchCodec<Pod> watch(String... events) {
    return new WatchCodec<>(stream(String.join("\n", events)), READER, PODS, WHAT, undecodable);
  }

  private static String event(String type, String object) {
    return "{\"type\":\"" + type + "\",\"object\":" + object + "}";
  }

  @Test
  void watch_modifiedEventThatDoesNotBind_isSkippedAndTheNextOneReturned() {
    WatchCodec<Pod> codec = watch(
        event("ADDED", pod("a", "80")),
        event("MODIFIED", pod("a", "\"http\"")),
        event("MODIFIED", pod("b", "82")));

    WatchEvent<Pod> first = codec.next();
    WatchEvent<Pod> second = codec.next();

    assertThat(first.type()).isEqualTo(WatchEventType.ADDED);
    assertThat(first.object().getMetadata().getName()).isEqualTo("a");
    assertThat(second.type()).isEqualTo(WatchEventType.MODIFIED);
    assertThat(second.object().getMetadata().getName()).isEqualTo("b");
    assertThat(codec.next()).isNull();
    assertThat(counted).hasValue(1);
    assertThat(log.text()).contains("skipped Pod ns/a").contains("containerPort");
  }

  @Test
  void watch_objectBeforeType_thatDoesNotBind_isSkipped() {
    WatchCodec<Pod> codec = watch(
        "{\"object\":" + pod("a", "\"http\"") + ",\"type\":\"ADDED\"}",
        event("ADDED", pod("b", "80")));

    assertThat(codec.next().object().getMetadata().getName()).isEqualTo("b");
    assertThat(counted).hasValue(1);
  }

  @Test
  void watch_deletedEventThatDoesNotBind_isStillADeletionOfItsKey() {
    WatchCodec<Pod> codec = watch(
        event("DELETED", pod("a", "\"http\"")),
        event("ADDED", pod("b", "80")));

    WatchEvent<Pod> deleted = codec.next();

    assertThat(deleted.type()).isEqualTo(WatchEventType.DELETED);
    assertThat(deleted.object().getMetadata().getNamespace()).isEqualTo("ns");
    assertThat(deleted.object().getMetadata().getName()).isEqualTo("a");
    assertThat(deleted.object().getKind()).isEqualTo("Pod");
    assertThat(codec.next().object().getMetadata().getName()).isEqualTo("b");
    assertThat(counted).hasValue(1);
    assertThat(log.text()).contains("deleted Pod ns/a").contains("fields after it unset");
  }

  @Test
  void watch_objectWhoseMetadataDoesNotBind_isSkippedWithoutAName() {
    WatchCodec<Pod> codec = watch(event("ADDED", "{\"metadata\":[1]}"));

    assertThat(codec.next()).isNull();
    assertThat(counted).hasValue(1);
    assertThat(log.text()).contains("skipped Pod (name unknown): its field metadata");
  }

  @Test
  void watch_bookmarkBetweenSkippedEvents_isDelivered() {
    WatchCodec<Pod> codec = watch(
        event("MODIFIED", pod("a", "\"x\"")),
        event("BOOKMARK", "{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
            + "\"metadata\":{\"resourceVersion\":\"12\"}}"));

    WatchEvent<Pod> bookmark = codec.next();

    assertThat(bookmark.type()).isEqualTo(WatchEventType.BOOKMARK);
    assertThat(bookmark.object().getMetadata().getResourceVersion()).isEqualTo("12");
  }

  @Test
  void serviceWithAStringForAPort_isSkipped() {
    ResourceType<Service> services = ResourceType.of(Service.class);
    String bad = "{\"metadata\":{\"name\":\"d\",\"namespace\":\"ns\"},"
        + "\"spec\":{\"ports\":[{\"port\":\"many\"}]}}";
    String good = "{\"metadata\":{\"name\":\"e\",\"namespace\":\"ns\"},"
        + "\"spec\":{\"ports\":[{\"port\":2}]}}";

    ListResult<Service> page = new ListCodec<>(READER, services, undecodable)
        .decode(stream("{\"metadata\":{},\"items\":[" + bad + "," + good + "]}"), WHAT);

    assertThat(names(page.items())).containsExactly("e");
    assertThat(log.text()).contains("skipped Service ns/d").contains("spec.ports[0].port");
  }
}
