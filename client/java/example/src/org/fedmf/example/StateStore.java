package org.fedmf.example;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HexFormat;
import org.fedmf.FedmfException;
import org.fedmf.Participant;

/**
 * The app's persistence recipe of docs/mobile.md in one directory: the model blob under its id
 * ({@code model-<hex>.pb}, written when the id changes), then the state ({@code state.pb}, one
 * slot), then the removal of blobs the state no longer names. Every file is written to a
 * temporary, fsynced and renamed over its name, and the directory fsynced, so a crash leaves the
 * old file or the new one and a stored state always finds its model. The files are the owner's
 * alone; a real app also encrypts the state (it holds secrets: docs/mobile.md, "Storage").
 */
final class StateStore {
  private static final String STATE = "state.pb";

  private final Path dir;
  private byte[] storedModelId; // the id of the newest blob on disk, null for none

  StateStore(Path dir) throws IOException {
    this.dir = dir;
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    }
  }

  /** True if a state was stored. */
  boolean hasState() {
    return Files.exists(dir.resolve(STATE));
  }

  /**
   * The participant of the stored state, with the model blob it names; without the model if that
   * blob is missing (the next task brings one).
   */
  Participant restore() throws IOException, FedmfException {
    byte[] state = Files.readAllBytes(dir.resolve(STATE));
    byte[] id = Participant.stateModelId(state);
    byte[] model = null;
    if (id != null) {
      Path blob = modelPath(id);
      if (Files.exists(blob)) {
        model = Files.readAllBytes(blob);
      } else {
        System.err.println("fedmf-java-example: no model blob " + blob
            + ": restoring without the model");
      }
    }
    Participant participant = Participant.restore(state, model);
    storedModelId = model != null ? id : null;
    return participant;
  }

  /**
   * Stores the participant durably (the recipe's three steps); returns the bytes of the state and
   * of the model blob written now (0 when the model did not change).
   */
  long[] save(Participant participant) throws IOException, FedmfException {
    byte[] id = participant.modelId();
    long modelBytes = 0;
    boolean newModel = id != null && !Arrays.equals(id, storedModelId);
    if (newModel) {
      byte[] model = participant.saveModel();
      writeDurably(modelPath(id), model);
      modelBytes = model.length;
    }
    byte[] state = participant.save();
    writeDurably(dir.resolve(STATE), state);
    if (newModel) {
      storedModelId = id;
      deleteModelsBut(modelPath(id));
    }
    return new long[] {state.length, modelBytes};
  }

  private Path modelPath(byte[] id) {
    return dir.resolve("model-" + HexFormat.of().formatHex(id) + ".pb");
  }

  private void deleteModelsBut(Path keep) throws IOException {
    try (DirectoryStream<Path> blobs = Files.newDirectoryStream(dir, "model-*.pb")) {
      for (Path blob : blobs) {
        if (!blob.equals(keep)) {
          Files.delete(blob);
        }
      }
    }
  }

  private void writeDurably(Path path, byte[] data) throws IOException {
    Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
    try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      ByteBuffer buffer = ByteBuffer.wrap(data);
      while (buffer.hasRemaining()) {
        out.write(buffer);
      }
      out.force(true);
    }
    Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
      directory.force(true); // the rename itself survives a crash
    }
  }
}
