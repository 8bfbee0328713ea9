package org.fedmf;

/**
 * FEDMF_ERR_INCOMPATIBLE_MODEL: the coordinator's model covers another item catalogue than the
 * config's num_items. No retry fixes it: close the stream and ship a config with the coordinator's
 * catalogue.
 */
public final class IncompatibleModelException extends FedmfException {
  private static final long serialVersionUID = 1L;

  /** The fedmf_status. */
  public static final int CODE = 6;

  IncompatibleModelException(String message) {
    super(CODE, message);
  }
}
