package org.fedmf;

import java.nio.file.Path;

/**
 * The native methods of libfedmf_jni (client/java/jni/fedmf_jni.c), one per C function of
 * fedmf/fedmf_client.h, taking a participant as its handle. A failed call throws the {@link
 * FedmfException} of its status. Loads the library on first use: from the path in the system
 * property {@code fedmf.jni.library} if set, else {@code fedmf_jni} from {@code java.library.path}
 * (JDK 22 and later warn about the load without {@code --enable-native-access=ALL-UNNAMED}).
 */
final class Native {
  static {
    String path = System.getProperty("fedmf.jni.library");
    if (path != null) {
      System.load(Path.of(path).toAbsolutePath().toString()); // System.load takes no relative path
    } else {
      System.loadLibrary("fedmf_jni");
    }
    // The glue was compiled against one header; a libfedmf_mobile of another ABI would misread it.
    if (abiVersion() != headerAbiVersion()) {
      throw new UnsatisfiedLinkError("libfedmf_mobile has ABI " + abiVersion()
          + ", libfedmf_jni was built for ABI " + headerAbiVersion());
    }
  }

  private Native() {}

  static native String version();
  static native int abiVersion();
  static native int headerAbiVersion();
  static native int protocolVersion();
  static native String sessionTokenMetadataKey();

  static native long create(byte[] config) throws FedmfException;
  static native long restore(byte[] state, byte[] model) throws FedmfException;
  static native void destroy(long participant);
  static native byte[] stateModelId(byte[] state) throws FedmfException;
  static native byte[] save(long participant) throws FedmfException;
  static native byte[] modelId(long participant) throws FedmfException;
  static native byte[] saveModel(long participant) throws FedmfException;

  static native void setRating(long participant, int item, float rating) throws FedmfException;
  static native void removeRating(long participant, int item) throws FedmfException;
  static native long ratingCount(long participant);

  static native long id(long participant);
  static native byte[] registerRequest(long participant, byte[] clientName,
      byte[] enrollmentToken) throws FedmfException;
  static native byte[] openStream(long participant, byte[] registerResponse)
      throws FedmfException;
  static native byte[][] handle(long participant, byte[] serverMessage) throws FedmfException;
  static native long roundsCompleted(long participant);
  static native boolean trainingDone(long participant);
  static native long takeCheckInMillis(long participant);

  static native long latestModelVersion(long participant);
  static native long modelVersion(long participant);
  static native byte[] downloadRequest(long participant) throws FedmfException;
  static native boolean handleModelChunk(long participant, byte[] chunk) throws FedmfException;

  static native boolean hasModel(long participant);
  static native int modelNumItems(long participant);
  static native int recommend(long participant, int n, int[] items, double[] scores)
      throws FedmfException;
  static native double predict(long participant, int item) throws FedmfException;
  static native double[] userFactor(long participant) throws FedmfException;
}
