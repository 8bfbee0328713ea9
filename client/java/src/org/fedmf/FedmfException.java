package org.fedmf;

import java.nio.charset.StandardCharsets;

/**
 * A call of the fedmf library failed: {@link #code} is its fedmf_status, the message the
 * library's own (fedmf_last_error). Each status has its subclass; a status this binding does not
 * know (a newer library) is a plain FedmfException. Nothing changed in the participant unless the
 * C header says so for that call.
 */
public class FedmfException extends Exception {
  private static final long serialVersionUID = 1L;

  private final int code;

  FedmfException(int code, String message) {
    super(message);
    this.code = code;
  }

  /** The fedmf_status of the failed call (e.g. {@link InvalidArgumentException#CODE}). */
  public int code() {
    return code;
  }

  /** Called by libfedmf_jni: the exception of a status, its message decoded from UTF-8 bytes. */
  static FedmfException fromNative(int code, byte[] message) {
    String text = new String(message, StandardCharsets.UTF_8);
    return switch (code) {
      case InvalidArgumentException.CODE -> new InvalidArgumentException(text);
      case FailedPreconditionException.CODE -> new FailedPreconditionException(text);
      case PermissionDeniedException.CODE -> new PermissionDeniedException(text);
      case NotFoundException.CODE -> new NotFoundException(text);
      case InternalException.CODE -> new InternalException(text);
      case IncompatibleModelException.CODE -> new IncompatibleModelException(text);
      default -> new FedmfException(code, text);
    };
  }
}
