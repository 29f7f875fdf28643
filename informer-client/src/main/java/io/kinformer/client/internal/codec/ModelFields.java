package io.kinformer.client.internal.codec;

import io.fabric8.kubernetes.api.model.Quantity;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reflected fields of one fabric8 model class that the informers' codecs read and replace:
 * one table per class, found in one reflection pass, for both {@link CacheCompactor} (right after
 * decoding) and {@link CacheFreezer} (after the informer's transform).
 *
 * <ul>
 *   <li>{@link #compaction()}: the list, map and {@link Quantity} fields that a public getter and
 *       setter pair of the same property and type exposes ({@link CacheCompactor.Accessors} says
 *       why fields and not the accessors);
 *   <li>{@link #frozen()}: the list, map and untyped ({@code Object}) fields that a public setter
 *       of the same name and type exposes, replaced by read-only ones, and the fields that hold
 *       nested model objects, frozen in place.
 * </ul>
 *
 * So neither sets anything a user could not set. A field that cannot be made accessible (a named
 * module that does not open its package) is left alone by both, and logged with one WARN per
 * class and JVM.
 *
 * <p>Thread safety: immutable; the tables are built once per class ({@link ClassValue}).
 */
final class ModelFields {

  private static final Logger log = LoggerFactory.getLogger(ModelFields.class);

  /** The classes whose inaccessible fields were logged: one warning per class and JVM. */
  private static final Set<Class<?>> WARNED = ConcurrentHashMap.newKeySet();

  private static final ClassValue<ModelFields> TABLES =
      new ClassValue<>() {
        @Override
        protected ModelFields computeValue(Class<?> type) {
          return scan(type, f -> f.setAccessible(true));
        }
      };

  private final CacheCompactor.Accessors compaction;
  private final Field[] frozen;

  private ModelFields(CacheCompactor.Accessors compaction, Field[] frozen) {
    this.compaction = compaction;
    this.frozen = frozen;
  }

  /** The table of {@code type}, built on first use. */
  static ModelFields of(Class<?> type) {
    return TABLES.get(type);
  }

  /** The fields {@link CacheCompactor} compacts. */
  CacheCompactor.Accessors compaction() {
    return compaction;
  }

  /** The fields {@link CacheFreezer} visits; the caller must not change the array. */
  Field[] frozen() {
    return frozen;
  }

  /** Whether objects of {@code type} are fabric8 model objects (which have fields worth a table). */
  static boolean isModel(Class<?> type) {
    return type.getName().startsWith("io.fabric8.kubernetes.") && !type.isEnum();
  }

  /**
   * A new table of {@code type}, making each field accessible with {@code open}; a field it fails
   * on is used by neither side and logged, once per class (tests pass an {@code open} that fails).
   */
  static ModelFields scan(Class<?> type, Consumer<Field> open) {
    Map<String, Set<Class<?>>> getters = getters(type);
    List<String> inaccessible = new ArrayList<>();
    @Nullable RuntimeException why = null;
    List<Field> frozen = new ArrayList<>();
    List<Field> compacted = new ArrayList<>();
    List<Boolean> untyped = new ArrayList<>();
    List<Boolean> quantities = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Field f : c.getDeclaredFields()) {
        Class<?> t = f.getType();
        if (Modifier.isStatic(f.getModifiers()) || t.isPrimitive() || t.isEnum()) {
          continue;
        }
        boolean settable = !Modifier.isFinal(f.getModifiers());
        boolean collection = t == List.class || t == Map.class;
        boolean freeze = collection || t == Object.class
            ? settable && hasSetter(type, setterFor(f.getName()), t)
            : isModel(t);
        @Nullable String getter = collection || t == Quantity.class
            ? (settable ? compactedGetter(type, f, getters) : null)
            : null;
        if (!freeze && getter == null) {
          continue;
        }
        try {
          open.accept(f);
        } catch (RuntimeException e) {
          inaccessible.add(f.getName());
          why = e;
          continue;
        }
        if (freeze) {
          frozen.add(f);
        }
        if (getter != null) {
          compacted.add(f);
          untyped.add(getter.equals("getAdditionalProperties"));
          quantities.add(t == Map.class
              && CacheCompactor.Accessors.mayHoldQuantities(f.getGenericType()));
        }
      }
    }
    if (why != null && WARNED.add(type)) {
      log.warn("cannot make fields {} of {} accessible ({}): decoded {} objects keep what these "
              + "fields hold as Jackson made it, so the informer cache holds it with more memory "
              + "and does not make its collections read-only (the content is the same); open "
              + "package {} to module io.kinformer.client to avoid this",
          inaccessible, type.getName(), why.toString(), type.getSimpleName(),
          type.getPackageName());
    }
    boolean[] u = new boolean[untyped.size()];
    boolean[] q = new boolean[untyped.size()];
    for (int i = 0; i < u.length; i++) {
      u[i] = untyped.get(i);
      q[i] = quantities.get(i);
    }
    return new ModelFields(
        new CacheCompactor.Accessors(compacted.toArray(new Field[0]), u, q),
        frozen.toArray(new Field[0]));
  }

  /**
   * The public instance getters of {@code type} that may expose a compacted field (no parameters,
   * not an interface's default method), by name, with their return types.
   */
  private static Map<String, Set<Class<?>>> getters(Class<?> type) {
    Map<String, Set<Class<?>>> out = new HashMap<>();
    for (Method m : type.getMethods()) {
      String name = m.getName();
      Class<?> t = m.getReturnType();
      if (m.getParameterCount() == 0 && !Modifier.isStatic(m.getModifiers()) && !m.isDefault()
          && name.startsWith("get") && name.length() >= 4
          && (t == List.class || t == Map.class || t == Quantity.class)) {
        out.computeIfAbsent(name, n -> new HashSet<>()).add(t);
      }
    }
    return out;
  }

  /**
   * The getter through which {@code f} is compacted, or null: a getter of {@code f}'s type whose
   * property names {@code f} ({@link #field}) and that has a public setter of that type.
   */
  private static @Nullable String compactedGetter(
      Class<?> type, Field f, Map<String, Set<Class<?>>> getters) {
    String name = f.getName();
    for (String property : name.startsWith("_")
        ? new String[] {name, name.substring(1)} : new String[] {name}) {
      if (property.isEmpty()) {
        continue;
      }
      String getter = "get" + Character.toUpperCase(property.charAt(0)) + property.substring(1);
      Set<Class<?>> types = getters.get(getter);
      if (types != null && types.contains(f.getType())
          && f.equals(field(type, Character.toLowerCase(getter.charAt(3)) + getter.substring(4)))
          && hasSetter(type, "set" + getter.substring(3), f.getType())) {
        return getter;
      }
    }
    return null;
  }

  /** The setter of the field named {@code name}: {@code _default}'s is {@code setDefault}. */
  private static String setterFor(String name) {
    String property = name.startsWith("_") ? name.substring(1) : name;
    return property.isEmpty() ? ""
        : "set" + Character.toUpperCase(property.charAt(0)) + property.substring(1);
  }

  private static boolean hasSetter(Class<?> type, String name, Class<?> parameter) {
    if (name.isEmpty()) {
      return false;
    }
    try {
      type.getMethod(name, parameter);
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /**
   * The field behind property {@code name}: {@code name} itself, or {@code _name} where the
   * property is a Java keyword (fabric8's {@code LimitRangeItem.getDefault()} is field {@code
   * _default}).
   */
  private static @Nullable Field field(Class<?> type, String name) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (String candidate : new String[] {name, "_" + name}) {
        try {
          return c.getDeclaredField(candidate);
        } catch (NoSuchFieldException e) {
          // try the other spelling, then the superclass
        }
      }
    }
    return null;
  }
}
