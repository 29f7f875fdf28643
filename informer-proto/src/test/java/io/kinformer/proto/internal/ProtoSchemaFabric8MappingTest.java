package io.kinformer.proto.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.kinformer.proto.internal.ProtoSchema.Field;
import io.kinformer.proto.internal.ProtoSchema.Message;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.HashSet;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Every field of every message of a kind with a fabric8 class maps to a JSON property of the
 * corresponding fabric8 class, so that a model upgrade (or a new Kubernetes field) cannot drop a
 * field silently: the decoder would write it and Jackson would put it into {@code
 * additionalProperties} or lose it. The reverse, fabric8 properties no protobuf field fills, is
 * checked too: such a property is never set from protobuf.
 */
class ProtoSchemaFabric8MappingTest {

  /**
   * Fields of Kubernetes 1.36 that fabric8 8.0.0 has no property for, as {@code message.field}
   * (reviewed: fields added to older beta versions after fabric8 generated their model, and
   * alpha fields newer than the model). The decoder writes them, and Jackson keeps them in the
   * object's additional properties, as it does for the same JSON.
   */
  private static final Set<String> FIELDS_FABRIC8_LACKS = Set.of(
      "k8s.io.api.admissionregistration.v1beta1.MutatingWebhook.matchConditions",
      "k8s.io.api.admissionregistration.v1beta1.ValidatingWebhook.matchConditions",
      "k8s.io.api.authorization.v1beta1.ResourceAttributes.fieldSelector",
      "k8s.io.api.authorization.v1beta1.ResourceAttributes.labelSelector",
      "k8s.io.api.batch.v1beta1.CronJobSpec.timeZone",
      "k8s.io.api.certificates.v1beta1.CertificateSigningRequestSpec.expirationSeconds",
      "k8s.io.api.core.v1.NodeAllocatableResourceClaimStatus.resources",
      "k8s.io.api.discovery.v1beta1.EndpointHints.forNodes",
      "k8s.io.api.extensions.v1beta1.DeploymentStatus.terminatingReplicas",
      "k8s.io.api.extensions.v1beta1.HTTPIngressPath.pathType",
      "k8s.io.api.extensions.v1beta1.IngressBackend.resource",
      "k8s.io.api.extensions.v1beta1.IngressSpec.ingressClassName",
      "k8s.io.api.extensions.v1beta1.NetworkPolicyPort.endPort",
      "k8s.io.api.extensions.v1beta1.ReplicaSetStatus.terminatingReplicas",
      "k8s.io.api.extensions.v1beta1.RollingUpdateDaemonSet.maxSurge",
      "k8s.io.api.flowcontrol.v1beta1.LimitedPriorityLevelConfiguration.borrowingLimitPercent",
      "k8s.io.api.flowcontrol.v1beta1.LimitedPriorityLevelConfiguration.lendablePercent",
      "k8s.io.api.flowcontrol.v1beta1.PriorityLevelConfigurationSpec.exempt",
      "k8s.io.api.flowcontrol.v1beta2.PriorityLevelConfigurationSpec.exempt",
      "k8s.io.api.flowcontrol.v1beta3.PriorityLevelConfigurationSpec.exempt",
      "k8s.io.api.policy.v1beta1.PodDisruptionBudgetSpec.unhealthyPodEvictionPolicy",
      "k8s.io.api.resource.v1.Device.nodeAllocatableResourceMappings",
      "k8s.io.api.resource.v1beta1.BasicDevice.nodeAllocatableResourceMappings",
      "k8s.io.api.resource.v1beta2.Device.nodeAllocatableResourceMappings",
      "k8s.io.api.storage.v1alpha1.VolumeError.errorCode",
      "k8s.io.api.storage.v1beta1.CSIDriverSpec.nodeAllocatableUpdatePeriodSeconds",
      "k8s.io.api.storage.v1beta1.CSIDriverSpec.preventPodSchedulingIfMissing",
      "k8s.io.api.storage.v1beta1.CSIDriverSpec.seLinuxMount",
      "k8s.io.api.storage.v1beta1.CSIDriverSpec.serviceAccountTokenInSecrets",
      "k8s.io.api.storage.v1beta1.VolumeError.errorCode");

  /**
   * fabric8 properties that no protobuf field of Kubernetes 1.36 fills, as {@code Class.property}
   * (reviewed: fabric8 8.0.0's model has alpha fields of a later Kubernetes, or of earlier ones
   * since removed); they stay unset, as they do from the same JSON.
   */
  private static final Set<String> PROPERTIES_WITHOUT_FIELD = Set.of(
      "io.fabric8.kubernetes.api.model.ClusterTrustBundleProjection.user",
      "io.fabric8.kubernetes.api.model.ConfigMapVolumeSource.defaultUser",
      "io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile.user",
      "io.fabric8.kubernetes.api.model.DownwardAPIVolumeSource.defaultUser",
      "io.fabric8.kubernetes.api.model.EmptyDirVolumeSource.mode",
      "io.fabric8.kubernetes.api.model.GRPCAction.mode",
      "io.fabric8.kubernetes.api.model.HTTPGetAction.protocol",
      "io.fabric8.kubernetes.api.model.KeyToPath.user",
      "io.fabric8.kubernetes.api.model.LoadBalancerIngress.ipMode",
      "io.fabric8.kubernetes.api.model.NodeAllocatableResourceClaimStatus.mapping",
      "io.fabric8.kubernetes.api.model.NodeAllocatableResourceClaimStatus.overhead",
      "io.fabric8.kubernetes.api.model.NodeSpec.podPreemptionPolicy",
      "io.fabric8.kubernetes.api.model.NodeSystemInfo.runningInUserNamespace",
      "io.fabric8.kubernetes.api.model.PersistentVolumeClaimStatus.healthStatus",
      "io.fabric8.kubernetes.api.model.PodCertificateProjection.user",
      "io.fabric8.kubernetes.api.model.PodSpec.evictionResponders",
      "io.fabric8.kubernetes.api.model.PodStatus.volumeHealth",
      "io.fabric8.kubernetes.api.model.ProjectedVolumeSource.defaultUser",
      "io.fabric8.kubernetes.api.model.SecretVolumeSource.defaultUser",
      "io.fabric8.kubernetes.api.model.ServiceAccountTokenProjection.user",
      "io.fabric8.kubernetes.api.model.VolumeMount.bindMountOptions",
      "io.fabric8.kubernetes.api.model.authentication.TokenRequestSpec.attestations",
      "io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscalerCondition.observedGeneration",
      "io.fabric8.kubernetes.api.model.batch.v1.JobSpec.scheduling",
      "io.fabric8.kubernetes.api.model.resource.v1.Device.nodeAllocatableResources",
      "io.fabric8.kubernetes.api.model.resource.v1.DeviceCounterConsumption.compatibilityGroups",
      "io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult.skipNodeOperations",
      "io.fabric8.kubernetes.api.model.resource.v1.DeviceSubRequest.derivedAttributes",
      "io.fabric8.kubernetes.api.model.resource.v1.ExactDeviceRequest.derivedAttributes",
      "io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec.partitionTypeAttribute",
      "io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec.skipNodeOperations",
      "io.fabric8.kubernetes.api.model.resource.v1alpha3.PoolStatus.partitionSummary",
      "io.fabric8.kubernetes.api.model.resource.v1alpha3.PoolStatus.shareableSummary",
      "io.fabric8.kubernetes.api.model.resource.v1alpha3.ResourcePoolStatusRequestSpec.defaultPartitionTypeAttribute",
      "io.fabric8.kubernetes.api.model.resource.v1beta1.BasicDevice.nodeAllocatableResources",
      "io.fabric8.kubernetes.api.model.resource.v1beta1.DeviceCounterConsumption.compatibilityGroups",
      "io.fabric8.kubernetes.api.model.resource.v1beta1.DeviceRequest.derivedAttributes",
      "io.fabric8.kubernetes.api.model.resource.v1beta1.DeviceRequestAllocationResult.skipNodeOperations",
      "io.fabric8.kubernetes.api.model.resource.v1beta1.DeviceSubRequest.derivedAttributes",
      "io.fabric8.kubernetes.api.model.resource.v1beta1.ResourceSliceSpec.partitionTypeAttribute",
      "io.fabric8.kubernetes.api.model.resource.v1beta1.ResourceSliceSpec.skipNodeOperations",
      "io.fabric8.kubernetes.api.model.resource.v1beta2.Device.nodeAllocatableResources",
      "io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceCounterConsumption.compatibilityGroups",
      "io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceRequestAllocationResult.skipNodeOperations",
      "io.fabric8.kubernetes.api.model.resource.v1beta2.DeviceSubRequest.derivedAttributes",
      "io.fabric8.kubernetes.api.model.resource.v1beta2.ExactDeviceRequest.derivedAttributes",
      "io.fabric8.kubernetes.api.model.resource.v1beta2.ResourceSliceSpec.partitionTypeAttribute",
      "io.fabric8.kubernetes.api.model.resource.v1beta2.ResourceSliceSpec.skipNodeOperations",
      "io.fabric8.kubernetes.api.model.storage.CSINode.status");

  private final Set<String> missing = new TreeSet<>();
  private final Set<String> extra = new TreeSet<>();
  private final Set<String> visited = new HashSet<>();

  @Test
  void everyFieldMapsToAFabric8Property() {
    int kinds = 0;
    for (ProtoSchema.Kind k : ProtoSchema.builtIn().kinds()) {
      Class<?> c = Fabric8Kinds.of(k.group(), k.version(), k.kind());
      if (c != null) {
        walk(k.message(), c);
        kinds++;
      }
    }
    assertThat(kinds).isGreaterThan(100);
    assertThat(missing).as("protobuf fields with no fabric8 property").isEqualTo(FIELDS_FABRIC8_LACKS);
    assertThat(extra).as("fabric8 properties with no protobuf field").isEqualTo(PROPERTIES_WITHOUT_FIELD);
  }

  private void walk(Message m, Class<?> c) {
    if (!visited.add(m.name() + " " + c.getName())) {
      return;
    }
    Map<String, java.lang.reflect.Field> props = properties(c);
    Set<String> used = new HashSet<>(Set.of("apiVersion", "kind"));
    walkFields(m, c, props, used);
    for (String p : props.keySet()) {
      if (!used.contains(p)) {
        extra.add(c.getName() + "." + p);
      }
    }
  }

  private void walkFields(Message m, Class<?> c, Map<String, java.lang.reflect.Field> props,
      Set<String> used) {
    for (Field f : m.fields()) {
      if (f.inline()) {
        walkFields(f.message(), c, props, used);
        continue;
      }
      java.lang.reflect.Field p = props.get(f.jsonName());
      if (p == null) {
        missing.add(m.name() + "." + f.jsonName());
        continue;
      }
      used.add(f.jsonName());
      Message sub = f.message();
      if (sub == null || sub.special() != null || sub.fields().isEmpty()) {
        continue;
      }
      Class<?> element = elementClass(p.getGenericType());
      if (sub.items()) {
        sub = sub.fields().get(0).message(); // a named slice: a List in fabric8
        if (sub == null || sub.special() != null) {
          continue;
        }
      }
      if (element != null && !element.getName().startsWith("java.")) {
        walk(sub, element);
      }
    }
  }

  /** The class of a property's value, of a list's elements or of a map's values. */
  private static Class<?> elementClass(Type t) {
    while (t instanceof ParameterizedType pt) {
      Type[] args = pt.getActualTypeArguments();
      t = args[args.length - 1];
    }
    return t instanceof Class<?> c ? c : null;
  }

  /** The JSON properties of a fabric8 class: its {@code @JsonProperty} fields. */
  private static Map<String, java.lang.reflect.Field> properties(Class<?> c) {
    Map<String, java.lang.reflect.Field> out = new HashMap<>();
    for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
      for (java.lang.reflect.Field f : k.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) || f.isAnnotationPresent(JsonIgnore.class)) {
          continue;
        }
        JsonProperty jp = f.getAnnotation(JsonProperty.class);
        String name = jp != null && !jp.value().isEmpty() ? jp.value() : f.getName();
        out.putIfAbsent(name, f);
      }
    }
    return out;
  }

}
