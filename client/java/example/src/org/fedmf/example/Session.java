package org.fedmf.example;

import fedmf.v1.FederationGrpc;
import fedmf.v1.ModelsGrpc;
import fedmf.v1.FederationOuterClass.ServerMessage;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.Context;
import io.grpc.ForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.fedmf.FailedPreconditionException;
import org.fedmf.Fedmf;
import org.fedmf.FedmfException;
import org.fedmf.IncompatibleModelException;
import org.fedmf.Participant;

/**
 * One registration and one Participate stream of a participant over grpc-java. The gRPC layer only
 * moves bytes (the generated method descriptors with a bytes marshaller): every ServerMessage goes
 * to {@link Participant#handle}, the participant is stored ({@link StateStore}) and only then are
 * its replies written, in order: the write-ahead rule. One thread drives the session; gRPC's
 * callbacks only queue what arrives.
 */
final class Session {
  /** How a session ended. */
  enum Outcome {
    DONE, // training is done
    BROKEN, // the stream broke or was refused: register again
    CHECK_IN, // the coordinator asked the device to come back after checkInMillis()
    FATAL // retrying cannot help (refused registration, another catalogue, a failed write)
  }

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };
  private static final MethodDescriptor<byte[], byte[]> REGISTER =
      FederationGrpc.getRegisterMethod().toBuilder(BYTES, BYTES).build();
  private static final MethodDescriptor<byte[], byte[]> PARTICIPATE =
      FederationGrpc.getParticipateMethod().toBuilder(BYTES, BYTES).build();
  private static final MethodDescriptor<byte[], byte[]> DOWNLOAD =
      ModelsGrpc.getDownloadMethod().toBuilder(BYTES, BYTES).build();
  private static final Metadata.Key<byte[]> SESSION_TOKEN =
      Metadata.Key.of(Fedmf.SESSION_TOKEN_METADATA_KEY, Metadata.BINARY_BYTE_MARSHALLER);

  /** What the stream delivered: a message, or its end (status set). */
  private record Event(byte[] message, Status status) {}

  private final Channel channel;
  private final Participant participant;
  private final StateStore store; // null: nothing is stored
  private final String token;
  private final long deadlineNanos; // System.nanoTime() at which the app gives up
  private long checkInMillis = -1; // after CHECK_IN: the wait before registering again

  Session(Channel channel, Participant participant, StateStore store, String token,
      long deadlineNanos) {
    this.channel = channel;
    this.participant = participant;
    this.store = store;
    this.token = token;
    this.deadlineNanos = deadlineNanos;
  }

  /** After {@link Outcome#CHECK_IN}: how long to wait before the next session. */
  long checkInMillis() {
    return checkInMillis;
  }

  Outcome run() throws FedmfException, IOException, InterruptedException {
    byte[] request = participant.registerRequest("fedmf-java-example", token);
    byte[] response;
    try {
      response = ClientCalls.blockingUnaryCall(channel, REGISTER,
          CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS), request);
    } catch (StatusRuntimeException e) {
      Status.Code code = e.getStatus().getCode();
      System.err.println("fedmf-java-example: register: " + e.getStatus());
      return code == Status.Code.UNAUTHENTICATED || code == Status.Code.INVALID_ARGUMENT
          || code == Status.Code.PERMISSION_DENIED ? Outcome.FATAL : Outcome.BROKEN;
    }
    byte[] sessionToken;
    try {
      sessionToken = participant.openStream(response);
    } catch (FedmfException e) {
      System.err.println("fedmf-java-example: register response: " + e.getMessage());
      return Outcome.BROKEN;
    }
    if (participant.trainingDone()) {
      return downloadLatest(sessionToken);
    }
    BlockingQueue<Event> inbox = new LinkedBlockingQueue<>();
    ClientCall<byte[], byte[]> call = channel.newCall(PARTICIPATE, CallOptions.DEFAULT);
    Metadata headers = new Metadata();
    headers.put(SESSION_TOKEN, sessionToken);
    call.start(new ClientCall.Listener<byte[]>() {
      @Override
      public void onMessage(byte[] message) {
        inbox.add(new Event(message, null));
      }

      @Override
      public void onClose(Status status, Metadata trailers) {
        inbox.add(new Event(null, status));
      }
    }, headers);
    call.request(1);
    JavaExample.event("registered", participant, "");
    while (true) {
      Event event = inbox.poll(100, TimeUnit.MILLISECONDS);
      if (event == null) {
        if (System.nanoTime() - deadlineNanos > 0) {
          call.cancel("giving up", null);
          return Outcome.BROKEN;
        }
        continue;
      }
      if (event.status() != null) {
        long later = participant.takeCheckInMillis();
        if (event.status().isOk() && later >= 0) {
          checkInMillis = later;
          JavaExample.event("check_in_later", participant, "wait_ms=" + later);
          return Outcome.CHECK_IN;
        }
        System.err.println("fedmf-java-example: stream ended: " + event.status());
        return Outcome.BROKEN;
      }
      Outcome outcome = serve(call, event.message());
      if (outcome != null) {
        return outcome;
      }
      call.request(1);
    }
  }

  /**
   * After a RegisterResponse saying training is over: downloads the newest published model unless
   * the participant holds it (docs/mobile.md, "Late devices"), each call resuming after the bytes
   * received, then stores it. DONE when it holds the newest model (or none is published).
   */
  private Outcome downloadLatest(byte[] sessionToken) throws FedmfException, IOException {
    ClientInterceptor withToken = new ClientInterceptor() {
      @Override
      public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method,
          CallOptions options, Channel next) {
        return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(
            next.newCall(method, options)) {
          @Override
          public void start(Listener<R> listener, Metadata headers) {
            headers.put(SESSION_TOKEN, sessionToken);
            super.start(listener, headers);
          }
        };
      }
    };
    Channel authenticated = ClientInterceptors.intercept(channel, withToken);
    for (int attempt = 0; attempt < 3; ++attempt) {
      byte[] request;
      try {
        request = participant.downloadRequest();
      } catch (FailedPreconditionException e) {
        return Outcome.DONE; // it holds the newest model, or none is published
      }
      // A cancellable context, so that a call left before its end (a refused chunk) is ended.
      Context.CancellableContext context = Context.current().withCancellation();
      Context previous = context.attach();
      try {
        Iterator<byte[]> chunks = ClientCalls.blockingServerStreamingCall(authenticated, DOWNLOAD,
            CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), request);
        while (chunks.hasNext()) {
          if (participant.handleModelChunk(chunks.next())) {
            if (store != null) {
              store.save(participant);
            }
            JavaExample.event("downloaded", participant, "version=" + participant.modelVersion());
            return Outcome.DONE;
          }
        }
      } catch (StatusRuntimeException | FedmfException e) {
        System.err.println("fedmf-java-example: download: " + e.getMessage());
      } finally {
        context.detach(previous);
        context.cancel(null);
      }
    }
    return Outcome.BROKEN;
  }

  /** Handles one server message; the session's outcome if it ends here, else null. */
  private Outcome serve(ClientCall<byte[], byte[]> call, byte[] message)
      throws FedmfException {
    List<byte[]> replies = List.of();
    try {
      replies = participant.handle(message);
    } catch (IncompatibleModelException e) {
      // The coordinator drops a cancelled stream at once; a silent one would cost its rounds a
      // stage timeout each.
      System.err.println("event=java_example_incompatible_model error=\"" + e.getMessage() + "\"");
      call.cancel("incompatible model", null);
      return Outcome.FATAL;
    } catch (FedmfException e) {
      // Not fatal (e.g. a late message of a round this user left): nothing to send.
      System.err.println("event=java_example_error code=" + e.code() + " error=\""
          + e.getMessage() + "\"");
    }
    long[] stored = {0, 0};
    if (store != null) {
      try {
        stored = store.save(participant);
      } catch (IOException e) {
        // Replies sent after a lost write could reveal a share the stored state does not know.
        System.err.println("fedmf-java-example: state not stored, replies not sent: " + e);
        call.cancel("state not stored", null);
        return Outcome.FATAL;
      }
    }
    for (byte[] reply : replies) {
      call.sendMessage(reply);
    }
    JavaExample.event("handled", participant, describe(message) + " replies=" + replies.size()
        + " state_bytes=" + stored[0] + " model_bytes=" + stored[1]);
    if (participant.trainingDone()) {
      call.halfClose();
      return Outcome.DONE;
    }
    return null;
  }

  /**
   * "kind=K round=R" of a server message for the progress line, read with the generated classes
   * (the library has parsed and checked it already: this is for the log only).
   */
  private static String describe(byte[] message) {
    ServerMessage parsed;
    try {
      parsed = ServerMessage.parseFrom(message);
    } catch (IOException e) {
      return "kind=unparsed round=-1";
    }
    return switch (parsed.getMessageCase()) {
      case TASK -> "kind=task round=" + parsed.getTask().getRound();
      case SECAGG -> "kind=" + parsed.getSecagg().getMessage().getMessageCase().name()
          .toLowerCase(Locale.ROOT) + " round=" + parsed.getSecagg().getRound();
      case RESULT -> "kind=result round=" + parsed.getResult().getRound();
      case CHUNK -> "kind=chunk round=" + parsed.getChunk().getRound();
      default -> "kind=unknown round=-1";
    };
  }
}
