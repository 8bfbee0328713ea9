package org.fedmf;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The JVM binding over the real libfedmf_jni and libfedmf_mobile: versions, ratings, queries
 * without a model, save and restore, the typed exception of each status a call can meet, protocol
 * bytes in and out, concurrent calls, and close. In package org.fedmf to reach the package-private
 * parts; a plain main (the JDK has no test runner): prints PASS or the first failure, exit 1.
 */
public final class ParticipantTest {
  private ParticipantTest() {}

  /** A serialized ParticipantConfig by hand (fields 1 and 2, varints < 128). */
  private static byte[] config(int id, int numItems) {
    return new byte[] {0x08, (byte) id, 0x10, (byte) numItems};
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError(what);
    }
  }

  private interface Call {
    void run() throws Exception;
  }

  /** Runs `call`, which must throw `type`; returns what it threw. */
  private static <T extends Throwable> T expect(Class<T> type, Call call, String what) {
    try {
      call.run();
    } catch (Throwable thrown) {
      check(type.isInstance(thrown), what + ": threw " + thrown + ", not " + type.getSimpleName());
      return type.cast(thrown);
    }
    throw new AssertionError(what + ": threw nothing, expected " + type.getSimpleName());
  }

  private static void versions() {
    check(Fedmf.version().matches("[0-9]+\\.[0-9]+\\.[0-9]+"), "version " + Fedmf.version());
    check(Fedmf.abiVersion() == Native.headerAbiVersion(), "ABI " + Fedmf.abiVersion());
    check(Fedmf.protocolVersion() > 0, "protocol version");
    check(Fedmf.SESSION_TOKEN_METADATA_KEY.equals("fedmf-session-token-bin"), "metadata key");
  }

  private static void refusedConfig() {
    InvalidArgumentException e = expect(InvalidArgumentException.class,
        () -> Participant.create(new byte[0]), "empty config");
    check(e.code() == InvalidArgumentException.CODE && e.code() == 1, "code " + e.code());
    check(e.getMessage().contains("participant_id"), "message: " + e.getMessage());
    expect(InvalidArgumentException.class, () -> Participant.create(new byte[] {(byte) 0xff}),
        "unparseable config");
    expect(NullPointerException.class, () -> Participant.create(null), "null config");
  }

  private static void ratingsAndQueries() throws Exception {
    try (Participant p = Participant.create(config(7, 60))) {
      check(p.id() == 7, "id " + p.id());
      p.setRating(3, 4.5f);
      p.setRating(10, 2f);
      p.setRating(3, 5f); // replaces
      check(p.ratingCount() == 2, "ratings " + p.ratingCount());
      p.removeRating(3);
      NotFoundException missing =
          expect(NotFoundException.class, () -> p.removeRating(3), "removed twice");
      check(missing.code() == NotFoundException.CODE, "code " + missing.code());
      InvalidArgumentException nan = expect(InvalidArgumentException.class,
          () -> p.setRating(4, Float.NaN), "NaN rating");
      check(nan.getMessage().contains("item 4"), "message names the item: " + nan.getMessage());
      expect(InvalidArgumentException.class, () -> p.setRating(60, 1f), "item out of range");
      check(p.ratingCount() == 1, "refusals changed nothing");

      check(!p.hasModel() && p.modelNumItems() == 0 && p.modelId() == null, "no model");
      FailedPreconditionException noModel = expect(FailedPreconditionException.class,
          () -> p.recommend(5), "recommend without a model");
      check(noModel.code() == FailedPreconditionException.CODE, "code " + noModel.code());
      expect(FailedPreconditionException.class, () -> p.predict(1), "predict without a model");
      expect(FailedPreconditionException.class, p::saveModel, "saveModel without a model");
      check(p.userFactor().length == 0, "no user factor yet");
      check(p.roundsCompleted() == 0 && !p.trainingDone(), "no progress");
    }
  }

  private static void saveAndRestore() throws Exception {
    byte[] state;
    try (Participant p = Participant.create(config(9, 40))) {
      p.setRating(1, 4f);
      p.setRating(2, 3f);
      state = p.save();
    }
    check(Participant.stateModelId(state) == null, "a state without a model names none");
    try (Participant restored = Participant.restore(state)) {
      check(restored.id() == 9 && restored.ratingCount() == 2, "restored id and ratings");
      check(Arrays.equals(restored.save(), state), "a restored participant saves the same bytes");
    }
    expect(InvalidArgumentException.class, () -> Participant.stateModelId(new byte[] {1, 2, 3}),
        "stateModelId of bytes that are not a state");
    expect(InvalidArgumentException.class, () -> Participant.restore(new byte[] {1, 2, 3}),
        "restore of bytes that are not a state");
    expect(InvalidArgumentException.class, () -> Participant.restore(state, new byte[] {1}),
        "a model blob for a state that names none");
  }

  private static void protocolBytes() throws Exception {
    try (Participant p = Participant.create(config(5, 30))) {
      byte[] request = p.registerRequest("java-test", "fedmf-demo");
      String text = new String(request, StandardCharsets.ISO_8859_1);
      check(text.contains("java-test") && text.contains("fedmf-demo"), "RegisterRequest fields");
      check(p.registerRequest(null, null).length > 0, "null strings are empty");
      expect(InvalidArgumentException.class, () -> p.registerRequest("a\0b", "t"), "NUL in name");
      expect(InvalidArgumentException.class, () -> p.registerRequest("\ud800", "t"),
          "unpaired surrogate");
      expect(InvalidArgumentException.class, () -> p.openStream(new byte[] {(byte) 0xff}),
          "malformed RegisterResponse");
      expect(InvalidArgumentException.class, () -> p.handle(new byte[] {(byte) 0xff, 0x01}),
          "malformed ServerMessage");
      InvalidArgumentException empty =
          expect(InvalidArgumentException.class, () -> p.handle(new byte[0]), "empty message");
      check(empty.getMessage().contains("no content"), "message: " + empty.getMessage());
      check(p.ratingCount() == 0 && p.id() == 5, "usable after refused messages");
      // A CheckInLater {retry_after_ms: 1500} (field 5): no reply, its delay taken once.
      check(p.takeCheckInMillis() == -1, "no check-in yet");
      check(p.handle(new byte[] {0x2a, 0x03, 0x08, (byte) 0xdc, 0x0b}).isEmpty(),
          "a CheckInLater has no reply");
      check(p.takeCheckInMillis() == 1500, "the check-in delay");
      check(p.takeCheckInMillis() == -1, "taken once");
    }
  }

  /** Two threads on one participant: the object serializes them, as the C API requires. */
  private static void concurrentCalls() throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (Participant p = Participant.create(config(11, 100))) {
      Thread[] threads = new Thread[2];
      for (int t = 0; t < threads.length; ++t) {
        final int offset = t * 50;
        threads[t] = new Thread(() -> {
          try {
            for (int round = 0; round < 20; ++round) {
              for (int item = offset; item < offset + 50; ++item) {
                p.setRating(item, 1f + item % 5);
              }
              p.save();
            }
          } catch (Throwable e) {
            failure.compareAndSet(null, e);
          }
        });
        threads[t].start();
      }
      for (Thread thread : threads) {
        thread.join();
      }
      check(failure.get() == null, "concurrent calls failed: " + failure.get());
      check(p.ratingCount() == 100, "ratings after concurrent calls " + p.ratingCount());
    }
  }

  private static void closeIsIdempotent() throws Exception {
    Participant p = Participant.create(config(3, 10));
    p.close();
    p.close();
    expect(IllegalStateException.class, p::id, "a call after close");
    expect(IllegalStateException.class, p::save, "save after close");
  }

  public static void main(String[] args) {
    try {
      versions();
      refusedConfig();
      ratingsAndQueries();
      saveAndRestore();
      protocolBytes();
      concurrentCalls();
      closeIsIdempotent();
    } catch (Throwable e) {
      System.out.println("FAIL java_binding: " + e);
      e.printStackTrace(System.out);
      System.exit(1);
    }
    System.out.println("PASS java_binding");
  }
}
