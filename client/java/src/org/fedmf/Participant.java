package org.fedmf;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One on-device user of a federated training: a fedmf_participant of the mobile library
 * (client/include/fedmf/fedmf_client.h, whose comments are the full contract of each method). The
 * library owns the protocol, the privacy noise and the model; the app moves the bytes it produces
 * over its own gRPC stack and stores its state write-ahead (docs/mobile.md, "The app's recipe").
 *
 * <p>Failures throw the {@link FedmfException} subclass of their status. Calls are serialized on
 * the object (the C API allows one call at a time per participant), so any thread may use it.
 * {@link #close} frees the native handle and wipes its secrets; closing again does nothing, and
 * any other call after it throws {@link IllegalStateException}.
 */
public final class Participant implements AutoCloseable {
  private long handle;

  private Participant(long handle) {
    this.handle = handle;
  }

  /**
   * A new participant from a serialized fedmf.v1.ParticipantConfig (proto/fedmf/v1/mobile.proto),
   * with no ratings, no model and a fresh signing key.
   */
  public static Participant create(byte[] config) throws FedmfException {
    return new Participant(Native.create(Objects.requireNonNull(config, "config")));
  }

  /**
   * The participant a state from {@link #save} describes, with the model blob it names ({@link
   * #stateModelId}; null to restore without a model, which the next task brings). A participant
   * saved during a round continues it.
   */
  public static Participant restore(byte[] state, byte[] model) throws FedmfException {
    return new Participant(Native.restore(Objects.requireNonNull(state, "state"), model));
  }

  /** {@link #restore(byte[], byte[])} without a model blob. */
  public static Participant restore(byte[] state) throws FedmfException {
    return restore(state, null);
  }

  /**
   * The id of the model blob a saved state names (32 bytes), or null if it names none (no model was
   * saved with it). Throws {@link InvalidArgumentException} for bytes that are not a state.
   */
  public static byte[] stateModelId(byte[] state) throws FedmfException {
    try {
      return Native.stateModelId(Objects.requireNonNull(state, "state"));
    } catch (NotFoundException namesNone) {
      return null;
    }
  }

  /**
   * The state (everything but the model) to store after every {@link #handle} and BEFORE sending
   * its replies: the write-ahead rule of the C header. It holds secrets: store it encrypted.
   */
  public synchronized byte[] save() throws FedmfException {
    return Native.save(live());
  }

  /** The id of the participant's model (the SHA-256 of {@link #saveModel}), or null without one. */
  public synchronized byte[] modelId() throws FedmfException {
    return Native.hasModel(live()) ? Native.modelId(handle) : null;
  }

  /** The model blob, to store under {@link #modelId} whenever that id changes. */
  public synchronized byte[] saveModel() throws FedmfException {
    return Native.saveModel(live());
  }

  /** Adds or replaces the rating of dense item {@code item}; takes effect from the next task. */
  public synchronized void setRating(int item, float rating) throws FedmfException {
    Native.setRating(live(), item, rating);
  }

  /** Removes the rating of {@code item}; {@link NotFoundException} if there is none. */
  public synchronized void removeRating(int item) throws FedmfException {
    Native.removeRating(live(), item);
  }

  public synchronized long ratingCount() {
    return Native.ratingCount(live());
  }

  /** The participant id of the config (an unsigned 32-bit value). */
  public synchronized long id() {
    return Native.id(live());
  }

  /** A serialized fedmf.v1.RegisterRequest for Federation.Register. */
  public synchronized byte[] registerRequest(String clientName, String enrollmentToken)
      throws FedmfException {
    return Native.registerRequest(live(), utf8(clientName, "clientName"),
        utf8(enrollmentToken, "enrollmentToken"));
  }

  /**
   * Reads the serialized fedmf.v1.RegisterResponse and returns the session token to open the
   * Participate stream with, as the binary metadata {@link Fedmf#SESSION_TOKEN_METADATA_KEY}. If
   * it says training is done, {@link #trainingDone} turns true and no stream is needed.
   */
  public synchronized byte[] openStream(byte[] registerResponse) throws FedmfException {
    return Native.openStream(live(), Objects.requireNonNull(registerResponse, "registerResponse"));
  }

  /**
   * Feeds one serialized fedmf.v1.ServerMessage and returns the serialized ClientMessages to write
   * on the stream, in order (possibly none). Save the state before writing them. On a failure
   * nothing is to be sent and the participant stays usable: log it and keep the stream open,
   * except for {@link IncompatibleModelException}, which no retry fixes.
   */
  public synchronized List<byte[]> handle(byte[] serverMessage) throws FedmfException {
    byte[][] replies =
        Native.handle(live(), Objects.requireNonNull(serverMessage, "serverMessage"));
    return List.of(replies);
  }

  /** The run's applied training rounds as the last result this participant received said. */
  public synchronized long roundsCompleted() {
    return Native.roundsCompleted(live());
  }

  /** True once the coordinator said training is over. */
  public synchronized boolean trainingDone() {
    return Native.trainingDone(live());
  }

  /**
   * Check-in: the delay, in milliseconds, of the CheckInLater the coordinator sent before ending
   * the stream, taken once (-1: none came). Register again after it, not before: the device
   * holds no connection while the coordinator does not need it.
   */
  public synchronized long takeCheckInMillis() {
    return Native.takeCheckInMillis(live());
  }

  /** The newest published model version the last RegisterResponse named (0: none). */
  public synchronized long latestModelVersion() {
    return Native.latestModelVersion(live());
  }

  /** The published version of this participant's model (0: none, or a round's task model). */
  public synchronized long modelVersion() {
    return Native.modelVersion(live());
  }

  /**
   * A serialized fedmf.v1.DownloadModelRequest for Models.Download (call it with the session
   * token as metadata, as Participate), resuming a download in progress after the bytes already
   * received. {@link FailedPreconditionException} when the participant holds the newest
   * published model already, or none is published (docs/mobile.md, "Late devices").
   */
  public synchronized byte[] downloadRequest() throws FedmfException {
    return Native.downloadRequest(live());
  }

  /**
   * Feeds one serialized fedmf.v1.ModelChunk of the download in progress; true once the model is
   * whole, matches its published SHA-256 and is this participant's (save it and the state then).
   * {@link InvalidArgumentException} for a chunk that does not continue the download (ask for a
   * new request) or a model that fails its hash (the next request starts over).
   */
  public synchronized boolean handleModelChunk(byte[] chunk) throws FedmfException {
    return Native.handleModelChunk(live(), Objects.requireNonNull(chunk, "chunk"));
  }

  public synchronized boolean hasModel() {
    return Native.hasModel(live());
  }

  /** The number of items the model covers (0 without a model). */
  public synchronized int modelNumItems() {
    return Native.modelNumItems(live());
  }

  /**
   * The top {@code n} (at least 1) unrated items under the model, best first, with their ranking
   * scores; {@link FailedPreconditionException} without a model.
   */
  public synchronized List<Recommendation> recommend(int n) throws FedmfException {
    int capacity = Math.max(0, Math.min(n, Native.modelNumItems(live())));
    int[] items = new int[capacity];
    double[] scores = new double[capacity];
    int count = Native.recommend(handle, n, items, scores);
    List<Recommendation> out = new ArrayList<>(count);
    for (int i = 0; i < count; ++i) {
      out.add(new Recommendation(items[i], scores[i]));
    }
    return out;
  }

  /** The predicted rating of {@code item}, clamped to the model's rating scale. */
  public synchronized double predict(int item) throws FedmfException {
    return Native.predict(live(), item);
  }

  /** The user factor of the last contribution (empty before the first). */
  public synchronized double[] userFactor() throws FedmfException {
    return Native.userFactor(live());
  }

  /**
   * Frees the native participant and wipes its secrets; later calls of close do nothing. Nothing
   * frees a participant that is never closed (a Cleaner could run while a native call still uses
   * the handle): close every one, e.g. with try-with-resources.
   */
  @Override
  public synchronized void close() {
    if (handle != 0) {
      Native.destroy(handle);
      handle = 0;
    }
  }

  private long live() {
    if (handle == 0) {
      throw new IllegalStateException("fedmf participant is closed");
    }
    return handle;
  }

  /** The UTF-8 bytes of a string the C API takes NUL-terminated (null: empty). */
  private static byte[] utf8(String value, String name) throws InvalidArgumentException {
    if (value == null) {
      return new byte[0];
    }
    if (value.indexOf('\0') >= 0) {
      throw new InvalidArgumentException(name + " contains a NUL character");
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    if (!new String(bytes, StandardCharsets.UTF_8).equals(value)) {
      throw new InvalidArgumentException(name + " is not valid Unicode (an unpaired surrogate)");
    }
    return bytes;
  }
}
