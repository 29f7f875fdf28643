package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodIP;
import io.fabric8.kubernetes.api.model.PodStatus;
import tools.jackson.databind.annotation.JsonDeserialize;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.module.SimpleModule;

/**
 * Properties whose values are unique by nature — an object's name, uid and resourceVersion, a
 * pod's IP, a container's ID — decoded by Jackson's own {@link StringDeserializer}, bypassing the
 * {@link StringPool}. Pooling them shares next to nothing (only an object's next version, if
 * its value is still pooled then): the lookup almost always misses, copies the characters and
 * evicts a value that other objects do share (a label, an image, a timestamp). Values that
 * many objects have in common in a real cluster (generateName, owner references, node names, host
 * IPs, image IDs) stay pooled, even where a synthetic workload makes them unique.
 *
 * <p>Applied as mix-in annotations, so Jackson still builds, and caches, one bean deserializer per
 * class; the decoded values are equal to pooled ones.
 *
 * <p>Thread safety: stateless.
 */
final class UniqueStrings {

  private UniqueStrings() {}

  /** Registers the mix-ins on {@code module}. */
  static void register(SimpleModule module) {
    module.setMixInAnnotation(ObjectMeta.class, ObjectMetaMixIn.class);
    module.setMixInAnnotation(PodStatus.class, PodStatusMixIn.class);
    module.setMixInAnnotation(PodIP.class, PodIpMixIn.class);
    module.setMixInAnnotation(ContainerStatus.class, ContainerStatusMixIn.class);
  }

  abstract static class ObjectMetaMixIn {
    @JsonDeserialize(using = StringDeserializer.class)
    private String name;

    @JsonDeserialize(using = StringDeserializer.class)
    private String uid;

    @JsonDeserialize(using = StringDeserializer.class)
    private String resourceVersion;
  }

  abstract static class PodStatusMixIn {
    @JsonDeserialize(using = StringDeserializer.class)
    private String podIP;
  }

  abstract static class PodIpMixIn {
    @JsonDeserialize(using = StringDeserializer.class)
    private String ip;
  }

  abstract static class ContainerStatusMixIn {
    @JsonDeserialize(using = StringDeserializer.class)
    private String containerID;
  }
}
