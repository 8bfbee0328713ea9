package org.fedmf;

/**
 * FEDMF_ERR_FAILED_PRECONDITION: the call does not fit the participant's state (e.g. a SecAgg
 * message of a round it is not in, or a query without a model). Nothing changed: send nothing and
 * go on.
 */
public final class FailedPreconditionException extends FedmfException {
  private static final long serialVersionUID = 1L;

  /** The fedmf_status. */
  public static final int CODE = 2;

  FailedPreconditionException(String message) {
    super(CODE, message);
  }
}
