package org.fedmf.example;

/** The command line of fedmf-java-example ({@link #USAGE}); refuses anything it does not know. */
final class Options {
  static final String USAGE =
      "usage: fedmf-java-example --coordinator=HOST:PORT --id=N --num_items=M"
      + " [--ratings=ITEM:RATING,...] [--token=T] [--state_dir=DIR] [--give_up_after_s=S]\n"
      + "One participant of a federated training in Java: fedmf-java (JNI over libfedmf_mobile)"
      + " and grpc-java.\n"
      + "  --ratings: the ratings of a new participant (a restored one keeps its saved ratings)\n"
      + "  --state_dir: where the state and the model blob are stored write-ahead, and restored"
      + " from at start\n";

  /** Thrown for a command line that cannot run; its message names the argument. */
  static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  String coordinator;
  long id;
  int numItems;
  String ratings = "";
  String token = "fedmf-demo"; // fedmf-coordinator's default
  String stateDir;
  long giveUpAfterSeconds = 60;
  boolean help;

  static Options parse(String[] args) throws UsageException {
    Options o = new Options();
    for (String arg : args) {
      if (arg.equals("--help")) {
        o.help = true;
        return o;
      }
      int eq = arg.indexOf('=');
      String name = eq < 0 ? arg : arg.substring(0, eq);
      String value = eq < 0 ? null : arg.substring(eq + 1);
      if (value == null) {
        throw new UsageException("unknown argument " + arg + " (see --help)");
      }
      switch (name) {
        case "--coordinator" -> o.coordinator = value;
        case "--id" -> o.id = number(name, value, 1, 0xffffffffL);
        case "--num_items" -> o.numItems = (int) number(name, value, 1, Integer.MAX_VALUE);
        case "--ratings" -> o.ratings = value;
        case "--token" -> o.token = value;
        case "--state_dir" -> o.stateDir = value;
        case "--give_up_after_s" -> o.giveUpAfterSeconds = number(name, value, 0, Long.MAX_VALUE);
        default -> throw new UsageException("unknown argument " + arg + " (see --help)");
      }
    }
    if (o.coordinator == null || o.id == 0 || o.numItems == 0) {
      throw new UsageException("--coordinator, --id and --num_items are required (see --help)");
    }
    return o;
  }

  private static long number(String name, String value, long min, long max)
      throws UsageException {
    try {
      long n = Long.parseLong(value);
      if (n >= min && n <= max) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(name + "=" + value + ": not an integer in [" + min + ", " + max + "]");
  }
}
