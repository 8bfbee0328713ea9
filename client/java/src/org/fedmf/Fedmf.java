package org.fedmf;

/** The versions of the loaded fedmf mobile library and the constants of its wire contract. */
public final class Fedmf {
  /**
   * The gRPC metadata key (binary) under which an app opens the Participate stream with the session
   * token from {@link Participant#openStream}.
   */
  public static final String SESSION_TOKEN_METADATA_KEY = Native.sessionTokenMetadataKey();

  private Fedmf() {}

  /** The fedmf release, e.g. "0.1.0". */
  public static String version() {
    return Native.version();
  }

  /** The C API's ABI version of the loaded library (FEDMF_ABI_VERSION). */
  public static int abiVersion() {
    return Native.abiVersion();
  }

  /** The wire protocol version the library speaks. */
  public static int protocolVersion() {
    return Native.protocolVersion();
  }
}
