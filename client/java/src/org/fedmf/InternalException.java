package org.fedmf;

/** FEDMF_ERR_INTERNAL: anything else (e.g. the OS random generator failed). */
public final class InternalException extends FedmfException {
  private static final long serialVersionUID = 1L;

  /** The fedmf_status. */
  public static final int CODE = 5;

  InternalException(String message) {
    super(CODE, message);
  }
}
