package io.kinformer.proto.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.kinformer.proto.internal.Fixtures.Fixture;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.util.TokenBuffer;

/**
 * Every kind of client-go's scheme, decoded from protobuf and from the JSON the server writes for
 * the same object, gives equal fabric8 objects.
 */
class ProtoJsonDifferentialTest {
  private static final JsonMapper MAPPER = TestMappers.mapper();
  private static final ProtoSchema SCHEMA = ProtoSchema.builtIn();
  private static final ProtoJson DECODER = new ProtoJson(MAPPER);

  /**
   * Kinds of the scheme with no fabric8 8.0.0 model class among the model jars of informer-client
   * (this module's test dependencies) (reviewed): request-only types the API server never lists
   * or watches (options, proxy and subresource requests, rollbacks), versions fabric8 does not
   * model (older betas of apps and rbac, most alphas) and groups whose model jar is not among them
   * (internal.apiserver.k8s.io).
   */
  private static final Set<String> NO_FABRIC8_CLASS = Set.of(
      "admissionregistration.k8s.io/v1alpha1 ValidatingAdmissionPolicy",
      "admissionregistration.k8s.io/v1alpha1 ValidatingAdmissionPolicyBinding",
      "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicy",
      "admissionregistration.k8s.io/v1beta1 ValidatingAdmissionPolicyBinding",
      "apps/v1beta1 ControllerRevision",
      "apps/v1beta1 Deployment",
      "apps/v1beta1 DeploymentRollback",
      "apps/v1beta1 Scale",
      "apps/v1beta1 StatefulSet",
      "apps/v1beta2 ControllerRevision",
      "apps/v1beta2 DaemonSet",
      "apps/v1beta2 Deployment",
      "apps/v1beta2 ReplicaSet",
      "apps/v1beta2 Scale",
      "apps/v1beta2 StatefulSet",
      "authentication.k8s.io/v1alpha1 SelfSubjectReview",
      "authentication.k8s.io/v1beta1 SelfSubjectReview",
      "certificates.k8s.io/v1alpha1 ClusterTrustBundle",
      "coordination.k8s.io/v1beta1 Lease",
      "core/v1 NodeProxyOptions",
      "core/v1 PodAttachOptions",
      "core/v1 PodLogOptions",
      "core/v1 PodPortForwardOptions",
      "core/v1 PodProxyOptions",
      "core/v1 PodStatusResult",
      "core/v1 RangeAllocation",
      "core/v1 SerializedReference",
      "core/v1 ServiceProxyOptions",
      "extensions/v1beta1 DeploymentRollback",
      "internal.apiserver.k8s.io/v1alpha1 StorageVersion",
      "networking.k8s.io/v1beta1 IPAddress",
      "networking.k8s.io/v1beta1 ServiceCIDR",
      "rbac.authorization.k8s.io/v1alpha1 ClusterRole",
      "rbac.authorization.k8s.io/v1alpha1 ClusterRoleBinding",
      "rbac.authorization.k8s.io/v1alpha1 Role",
      "rbac.authorization.k8s.io/v1alpha1 RoleBinding",
      "rbac.authorization.k8s.io/v1beta1 ClusterRole",
      "rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding",
      "rbac.authorization.k8s.io/v1beta1 Role",
      "rbac.authorization.k8s.io/v1beta1 RoleBinding",
      "scheduling.k8s.io/v1alpha2 PodGroup",
      "scheduling.k8s.io/v1alpha2 Workload",
      "storage.k8s.io/v1alpha1 VolumeAttributesClass",
      "storage.k8s.io/v1beta1 VolumeAttributesClass");

  @Test
  void protobufAndJsonDecodeToEqualObjects() {
    List<String> differences = new ArrayList<>();
    Set<String> withoutClass = new TreeSet<>();
    int compared = 0;
    for (Fixture f : Fixtures.all()) {
      Class<?> type = Fabric8Kinds.of(f.group(), f.version(), f.kind());
      if (type == null) {
        withoutClass.add(f.toString());
        continue;
      }
      ProtoSchema.Message message = SCHEMA.message(f.message());
      assertThat(message).as(f.message()).isNotNull();
      Object fromJson = MAPPER.readValue(f.json(), type);
      Object fromProto;
      try {
        TokenBuffer tokens = DECODER.toTokens(message, f.protobuf(), 0, f.protobuf().length);
        fromProto = MAPPER.readValue(tokens, type);
      } catch (RuntimeException e) {
        differences.add(f + ": " + e);
        continue;
      }
      compared++;
      if (!fromJson.equals(fromProto)) {
        List<String> paths = new ArrayList<>();
        diff("", MAPPER.valueToTree(fromJson), MAPPER.valueToTree(fromProto), paths);
        differences.add(f + " (" + type.getSimpleName() + "): " + paths);
      }
    }
    assertThat(differences).as("kinds whose protobuf decodes differently from their JSON").isEmpty();
    assertThat(withoutClass).as("kinds with no fabric8 class").isEqualTo(NO_FABRIC8_CLASS);
    assertThat(compared).isGreaterThan(200);
  }

  /** The paths at which two JSON trees differ, with both values. */
  static void diff(String path, JsonNode a, JsonNode b, List<String> out) {
    if (a.equals(b)) {
      return;
    }
    if (a.isObject() && b.isObject()) {
      Set<String> names = new TreeSet<>();
      a.propertyNames().forEach(names::add);
      b.propertyNames().forEach(names::add);
      for (String n : names) {
        diff(path + "." + n, a.path(n), b.path(n), out);
      }
    } else if (a.isArray() && b.isArray() && a.size() == b.size()) {
      for (int i = 0; i < a.size(); i++) {
        diff(path + "[" + i + "]", a.get(i), b.get(i), out);
      }
    } else {
      out.add(path + ": json=" + shorten(a) + " protobuf=" + shorten(b));
    }
  }

  private static String shorten(JsonNode n) {
    String s = n.toString();
    return s.length() > 120 ? s.substring(0, 120) + "..." : s;
  }
}
