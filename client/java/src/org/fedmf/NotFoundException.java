package org.fedmf;

/** FEDMF_ERR_NOT_FOUND: e.g. the item has no rating to remove. */
public final class NotFoundException extends FedmfException {
  private static final long serialVersionUID = 1L;

  /** The fedmf_status. */
  public static final int CODE = 4;

  NotFoundException(String message) {
    super(CODE, message);
  }
}
