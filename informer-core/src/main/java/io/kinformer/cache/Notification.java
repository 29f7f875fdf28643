package io.kinformer.cache;

/** One call owed to a handler. */
sealed interface Notification<T> {

  /** The object the notification is about, for logging its key. */
  T subject();

  record Add<T>(T obj, boolean isInInitialList) implements Notification<T> {
    @Override
    public T subject() {
      return obj;
    }
  }

  record Update<T>(T oldObj, T newObj) implements Notification<T> {
    @Override
    public T subject() {
      return newObj;
    }
  }

  record Delete<T>(T obj, boolean finalStateUnknown) implements Notification<T> {
    @Override
    public T subject() {
      return obj;
    }
  }
}
