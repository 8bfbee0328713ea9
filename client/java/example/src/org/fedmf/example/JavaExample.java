package org.fedmf.example;

import fedmf.v1.Mobile.ParticipantConfig;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.fedmf.Fedmf;
import org.fedmf.FedmfException;
import org.fedmf.Participant;
import org.fedmf.Recommendation;

/**
 * fedmf-java-example: one on-device user in Java, as an Android app would run it. fedmf-java (the
 * mobile library through JNI) owns the protocol, the privacy noise and the model; grpc-java moves
 * the bytes ({@link Session}); {@link StateStore} keeps the state and the model blob write-ahead.
 * Flow: restore from --state_dir if it holds a state, else create a participant with --ratings;
 * register, open the Participate stream and serve it until training is done, registering again
 * when the stream breaks; print a local top 5 and the ratings the model predicts for it. Progress
 * goes to stdout as event lines.
 */
public final class JavaExample {
  private JavaExample() {}

  public static void main(String[] args) {
    Options options;
    try {
      options = Options.parse(args);
    } catch (Options.UsageException e) {
      System.err.println("fedmf-java-example: " + e.getMessage());
      System.err.print(Options.USAGE);
      System.exit(2);
      return;
    }
    if (options.help) {
      System.out.print(Options.USAGE);
      return;
    }
    System.exit(run(options));
  }

  /** Prints "event=java_example_NAME participant=ID FIELDS" and flushes (a kill loses nothing). */
  static void event(String name, Participant participant, String fields) {
    System.out.println("event=java_example_" + name + " participant=" + participant.id()
        + (fields.isEmpty() ? "" : " " + fields));
    System.out.flush();
  }

  private static int run(Options options) {
    StateStore store = null;
    try {
      store = options.stateDir == null ? null : new StateStore(Path.of(options.stateDir));
    } catch (IOException e) {
      System.err.println("fedmf-java-example: --state_dir: " + e);
      return 1;
    }
    // Plaintext, as fedmf-c-example's transport; an app uses TLS (useTransportSecurity()). Idle
    // (no stream, e.g. waiting for a check-in) the channel drops its connection.
    ManagedChannel channel = ManagedChannelBuilder.forTarget(options.coordinator).usePlaintext()
        .idleTimeout(2, TimeUnit.SECONDS).build();
    try (Participant participant = open(options, store)) {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.giveUpAfterSeconds);
      Session.Outcome outcome =
          participant.trainingDone() ? Session.Outcome.DONE : Session.Outcome.BROKEN;
      while (outcome != Session.Outcome.DONE && outcome != Session.Outcome.FATAL
          && System.nanoTime() - deadline < 0) {
        Session session = new Session(channel, participant, store, options.token, deadline);
        outcome = session.run();
        if (outcome == Session.Outcome.BROKEN) {
          Thread.sleep(200);
        } else if (outcome == Session.Outcome.CHECK_IN) {
          // The coordinator works and will want this device later: wait as asked, then give up
          // only after another full period without it.
          Thread.sleep(session.checkInMillis());
          deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(options.giveUpAfterSeconds);
        }
      }
      if (store != null) {
        store.save(participant);
      }
      event("end", participant, "done=" + (outcome == Session.Outcome.DONE ? "yes" : "no")
          + " rounds_completed=" + participant.roundsCompleted() + " " + top5(participant));
      return outcome == Session.Outcome.DONE ? 0 : 1;
    } catch (FedmfException e) {
      System.err.println("fedmf-java-example: " + e.getClass().getSimpleName() + " (status "
          + e.code() + "): " + e.getMessage());
      return 1;
    } catch (IOException e) {
      System.err.println("fedmf-java-example: " + e);
      return 1;
    } catch (IllegalArgumentException e) {
      System.err.println("fedmf-java-example: " + e.getMessage());
      return 2;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } finally {
      channel.shutdownNow();
    }
  }

  /** The participant of the store's state if there is one, else a new one with --ratings. */
  private static Participant open(Options options, StateStore store)
      throws FedmfException, IOException {
    if (store != null && store.hasState()) {
      Participant participant = store.restore();
      event("restored", participant, "ratings=" + participant.ratingCount() + " model="
          + (participant.hasModel() ? "yes" : "no") + " library=" + Fedmf.version());
      return participant;
    }
    byte[] config = ParticipantConfig.newBuilder()
        .setParticipantId((int) options.id)
        .setNumItems(options.numItems)
        .build()
        .toByteArray();
    Participant participant = Participant.create(config);
    try {
      setRatings(participant, options.ratings);
    } catch (FedmfException | IllegalArgumentException e) {
      participant.close();
      throw e;
    }
    event("created", participant, "ratings=" + participant.ratingCount() + " library="
        + Fedmf.version());
    return participant;
  }

  /** Sets "ITEM:RATING,..." (IllegalArgumentException naming a malformed entry). */
  private static void setRatings(Participant participant, String list) throws FedmfException {
    if (list.isEmpty()) {
      return;
    }
    for (String entry : list.split(",")) {
      String[] parts = entry.split(":");
      if (parts.length != 2) {
        throw new IllegalArgumentException("--ratings: '" + entry + "' is not ITEM:RATING");
      }
      try {
        participant.setRating(Integer.parseInt(parts[0]), Float.parseFloat(parts[1]));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--ratings: '" + entry + "' is not ITEM:RATING");
      }
    }
  }

  /**
   * "top5=ITEM:SCORE,... predicted=ITEM:RATING,...": the local top 5 with its ranking scores, and
   * the ratings the model predicts for those items (empty lists without a model).
   */
  private static String top5(Participant participant) throws FedmfException {
    if (!participant.hasModel()) {
      return "top5= predicted=";
    }
    List<Recommendation> top = participant.recommend(5);
    StringBuilder scores = new StringBuilder();
    StringBuilder ratings = new StringBuilder();
    for (Recommendation r : top) {
      String separator = scores.length() == 0 ? "" : ",";
      scores.append(separator).append(r.item()).append(':').append(decimal(r.score()));
      ratings.append(separator).append(r.item()).append(':')
          .append(decimal(participant.predict(r.item())));
    }
    return "top5=" + scores + " predicted=" + ratings;
  }

  private static String decimal(double value) {
    return String.format(Locale.ROOT, "%.3f", value);
  }
}
