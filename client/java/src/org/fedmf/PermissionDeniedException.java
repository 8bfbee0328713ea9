package org.fedmf;

/** FEDMF_ERR_PERMISSION_DENIED: the server asked for something the library refuses to do. */
public final class PermissionDeniedException extends FedmfException {
  private static final long serialVersionUID = 1L;

  /** The fedmf_status. */
  public static final int CODE = 3;

  PermissionDeniedException(String message) {
    super(CODE, message);
  }
}
