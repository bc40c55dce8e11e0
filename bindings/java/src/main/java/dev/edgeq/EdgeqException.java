package dev.edgeq;

import java.nio.charset.StandardCharsets;

/** A failed C API call: its status ({@code edgeq_status}) and its message (edgeq_last_error). */
public class EdgeqException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private static final String[] NAMES = {
    "OK", "INVALID_ARGUMENT", "NOT_FOUND", "OUT_OF_RANGE", "FAILED_PRECONDITION",
    "BUFFER_TOO_SMALL", "IO", "INTERNAL", "CANCELLED"
  };

  private final int status;

  // Called from JNI (edgeq_jni.c, check()).
  EdgeqException(int status, byte[] utf8Message) {
    super(new String(utf8Message, StandardCharsets.UTF_8));
    this.status = status;
  }

  /** The C API's status code (1 INVALID_ARGUMENT ... 7 INTERNAL, 8 CANCELLED). */
  public int status() {
    return status;
  }

  /** The status' name as edgeq_status_name gives it ("INVALID_ARGUMENT", ...). */
  public String statusName() {
    return status >= 0 && status < NAMES.length ? NAMES[status] : "UNKNOWN";
  }
}
