package org.fedmf;

/**
 * FEDMF_ERR_INVALID_ARGUMENT: a value out of range, or bytes that do not parse or do not fit the
 * protocol (a malformed config, state or server message).
 */
public final class InvalidArgumentException extends FedmfException {
  private static final long serialVersionUID = 1L;

  /** The fedmf_status. */
  public static final int CODE = 1;

  InvalidArgumentException(String message) {
    super(CODE, message);
  }
}
