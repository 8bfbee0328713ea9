/* libfedmf_jni: the JNI glue of fedmf-java (the native methods of org.fedmf.Native), calling only
 * the public C API of fedmf/fedmf_client.h. Every failure leaves a pending Java exception when the
 * native method returns: a fedmf_status other than FEDMF_OK becomes the org.fedmf.FedmfException
 * subclass of that status (FedmfException.fromNative) with fedmf_last_error(), read on the failing
 * thread within the same call; a failed JNI allocation leaves the JVM's OutOfMemoryError. Nothing
 * else crosses: the C API catches its own C++ exceptions.
 * To bind a new C function: a static native in Native.java and one function here. */
#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fedmf/fedmf_client.h"

static jclass g_exception_class;  /* org.fedmf.FedmfException */
static jmethodID g_from_native;   /* static FedmfException fromNative(int, byte[]) */
static jclass g_byte_array_class; /* byte[] */

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* reserved) {
  (void)reserved;
  JNIEnv* env = NULL;
  if ((*vm)->GetEnv(vm, (void**)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
  jclass exception = (*env)->FindClass(env, "org/fedmf/FedmfException");
  if (exception == NULL) return JNI_ERR;
  jclass byte_array = (*env)->FindClass(env, "[B");
  if (byte_array == NULL) return JNI_ERR;
  g_from_native =
      (*env)->GetStaticMethodID(env, exception, "fromNative", "(I[B)Lorg/fedmf/FedmfException;");
  if (g_from_native == NULL) return JNI_ERR;
  g_exception_class = (*env)->NewGlobalRef(env, exception);
  g_byte_array_class = (*env)->NewGlobalRef(env, byte_array);
  if (g_exception_class == NULL || g_byte_array_class == NULL) return JNI_ERR;
  return JNI_VERSION_1_8;
}

static fedmf_participant* Handle(jlong handle) { return (fedmf_participant*)(intptr_t)handle; }

/* Throws the FedmfException of `status` with `message`, passed as bytes: the library's message may
 * quote app input, which need not be the modified UTF-8 NewStringUTF requires. */
static void ThrowMessage(JNIEnv* env, fedmf_status status, const char* message) {
  const size_t len = strlen(message);
  const jsize kept = len > INT32_MAX ? INT32_MAX : (jsize)len;
  jbyteArray bytes = (*env)->NewByteArray(env, kept);
  if (bytes == NULL) return;
  (*env)->SetByteArrayRegion(env, bytes, 0, kept, (const jbyte*)message);
  jobject exception =
      (*env)->CallStaticObjectMethod(env, g_exception_class, g_from_native, (jint)status, bytes);
  if (exception != NULL && !(*env)->ExceptionCheck(env)) (*env)->Throw(env, (jthrowable)exception);
}

/* Throws for a failed call of the C API: its status and the calling thread's last error. */
static void ThrowStatus(JNIEnv* env, fedmf_status status) {
  ThrowMessage(env, status, fedmf_last_error());
}

static void ThrowOutOfMemory(JNIEnv* env, const char* what) {
  jclass error = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
  if (error != NULL) (*env)->ThrowNew(env, error, what);
}

/* Overwrites a buffer that may hold secrets (a state, a config) before it is freed; through a
 * volatile pointer so the compiler keeps the writes. */
static void Wipe(void* data, size_t len) {
  volatile uint8_t* p = data;
  while (len-- > 0) *p++ = 0;
}

typedef struct {
  uint8_t* data; /* NULL for a null or empty array */
  size_t len;
} Bytes;

/* Copies a Java byte[] (null: no bytes) into `out`, plus a NUL byte after the end when
 * `terminate` (for a C string). 0 with an exception pending if memory ran out. */
static int ReadBytes(JNIEnv* env, jbyteArray array, int terminate, Bytes* out) {
  out->data = NULL;
  out->len = 0;
  const jsize len = array == NULL ? 0 : (*env)->GetArrayLength(env, array);
  if (len == 0 && !terminate) return 1;
  out->data = calloc((size_t)len + (terminate ? 1 : 0), 1);
  if (out->data == NULL) {
    ThrowOutOfMemory(env, "fedmf-java: copying a byte array");
    return 0;
  }
  if (len > 0) (*env)->GetByteArrayRegion(env, array, 0, len, (jbyte*)out->data);
  out->len = (size_t)len;
  return 1;
}

static void FreeBytes(Bytes* bytes) {
  if (bytes->data != NULL) Wipe(bytes->data, bytes->len);
  free(bytes->data);
  bytes->data = NULL;
  bytes->len = 0;
}

/* A new Java byte[] with `len` bytes of `data` (NULL with an exception pending on failure). */
static jbyteArray NewBytes(JNIEnv* env, const uint8_t* data, size_t len) {
  if (len > INT32_MAX) {
    ThrowOutOfMemory(env, "fedmf-java: a buffer larger than a Java array");
    return NULL;
  }
  jbyteArray out = (*env)->NewByteArray(env, (jsize)len);
  if (out != NULL && len > 0) {
    (*env)->SetByteArrayRegion(env, out, 0, (jsize)len, (const jbyte*)data);
  }
  return out;
}

/* Returns a buffer the C API allocated as a Java byte[] and frees it (wiped: it may be a state). */
static jbyteArray TakeBuffer(JNIEnv* env, fedmf_status status, uint8_t* data, size_t len) {
  jbyteArray out = NULL;
  if (status != FEDMF_OK) {
    ThrowStatus(env, status);
  } else {
    out = NewBytes(env, data, len);
  }
  if (data != NULL) Wipe(data, len);
  fedmf_free(data);
  return out;
}

/* ---- Versions ------------------------------------------------------------------------------ */

JNIEXPORT jstring JNICALL Java_org_fedmf_Native_version(JNIEnv* env, jclass cls) {
  (void)cls;
  return (*env)->NewStringUTF(env, fedmf_version());
}

JNIEXPORT jint JNICALL Java_org_fedmf_Native_abiVersion(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)fedmf_abi_version();
}

JNIEXPORT jint JNICALL Java_org_fedmf_Native_headerAbiVersion(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  return FEDMF_ABI_VERSION;
}

JNIEXPORT jint JNICALL Java_org_fedmf_Native_protocolVersion(JNIEnv* env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)fedmf_protocol_version();
}

JNIEXPORT jstring JNICALL Java_org_fedmf_Native_sessionTokenMetadataKey(JNIEnv* env, jclass cls) {
  (void)cls;
  return (*env)->NewStringUTF(env, FEDMF_SESSION_TOKEN_METADATA_KEY);
}

/* ---- Lifecycle and persistence ------------------------------------------------------------- */

JNIEXPORT jlong JNICALL Java_org_fedmf_Native_create(JNIEnv* env, jclass cls, jbyteArray config) {
  (void)cls;
  Bytes in;
  if (!ReadBytes(env, config, 0, &in)) return 0;
  fedmf_participant* p = NULL;
  const fedmf_status s = fedmf_participant_create(in.data, in.len, &p);
  FreeBytes(&in);
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
    return 0;
  }
  return (jlong)(intptr_t)p;
}

JNIEXPORT jlong JNICALL Java_org_fedmf_Native_restore(JNIEnv* env, jclass cls, jbyteArray state,
                                                      jbyteArray model) {
  (void)cls;
  Bytes state_bytes, model_bytes;
  if (!ReadBytes(env, state, 0, &state_bytes)) return 0;
  if (!ReadBytes(env, model, 0, &model_bytes)) {
    FreeBytes(&state_bytes);
    return 0;
  }
  fedmf_participant* p = NULL;
  const fedmf_status s = fedmf_participant_restore_with_model(
      state_bytes.data, state_bytes.len, model_bytes.data, model_bytes.len, &p);
  FreeBytes(&state_bytes);
  FreeBytes(&model_bytes);
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
    return 0;
  }
  return (jlong)(intptr_t)p;
}

JNIEXPORT void JNICALL Java_org_fedmf_Native_destroy(JNIEnv* env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  fedmf_participant_destroy(Handle(handle));
}

JNIEXPORT jbyteArray JNICALL Java_org_fedmf_Native_stateModelId(JNIEnv* env, jclass cls,
                                                                jbyteArray state) {
  (void)cls;
  Bytes in;
  if (!ReadBytes(env, state, 0, &in)) return NULL;
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  const fedmf_status s = fedmf_state_model_id(in.data, in.len, id);
  FreeBytes(&in);
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
    return NULL;
  }
  return NewBytes(env, id, sizeof id);
}

JNIEXPORT jbyteArray JNICALL Java_org_fedmf_Native_save(JNIEnv* env, jclass cls, jlong handle) {
  (void)cls;
  uint8_t* out = NULL;
  size_t len = 0;
  const fedmf_status s = fedmf_participant_save(Handle(handle), &out, &len);
  return TakeBuffer(env, s, out, len);
}

JNIEXPORT jbyteArray JNICALL Java_org_fedmf_Native_modelId(JNIEnv* env, jclass cls, jlong handle) {
  (void)cls;
  uint8_t id[FEDMF_MODEL_ID_BYTES];
  const fedmf_status s = fedmf_participant_model_id(Handle(handle), id);
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
    return NULL;
  }
  return NewBytes(env, id, sizeof id);
}

JNIEXPORT jbyteArray JNICALL Java_org_fedmf_Native_saveModel(JNIEnv* env, jclass cls,
                                                             jlong handle) {
  (void)cls;
  uint8_t* out = NULL;
  size_t len = 0;
  const fedmf_status s = fedmf_participant_save_model(Handle(handle), &out, &len);
  return TakeBuffer(env, s, out, len);
}

/* ---- Ratings ------------------------------------------------------------------------------- */

JNIEXPORT void JNICALL Java_org_fedmf_Native_setRating(JNIEnv* env, jclass cls, jlong handle,
                                                       jint item, jfloat rating) {
  (void)cls;
  const fedmf_status s = fedmf_participant_set_rating(Handle(handle), item, rating);
  if (s != FEDMF_OK) ThrowStatus(env, s);
}

JNIEXPORT void JNICALL Java_org_fedmf_Native_removeRating(JNIEnv* env, jclass cls, jlong handle,
                                                          jint item) {
  (void)cls;
  const fedmf_status s = fedmf_participant_remove_rating(Handle(handle), item);
  if (s != FEDMF_OK) ThrowStatus(env, s);
}

JNIEXPORT jlong JNICALL Java_org_fedmf_Native_ratingCount(JNIEnv* env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jlong)fedmf_participant_rating_count(Handle(handle));
}

/* ---- Protocol ------------------------------------------------------------------------------ */

JNIEXPORT jlong JNICALL Java_org_fedmf_Native_id(JNIEnv* env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jlong)fedmf_participant_id(Handle(handle));
}

/* client_name and enrollment_token: UTF-8 bytes (org.fedmf.Participant refuses a NUL in them,
 * which would cut the C string short; refused here too). */
JNIEXPORT jbyteArray JNICALL Java_org_fedmf_Native_registerRequest(JNIEnv* env, jclass cls,
                                                                   jlong handle,
                                                                   jbyteArray client_name,
                                                                   jbyteArray enrollment_token) {
  (void)cls;
  Bytes name, token;
  if (!ReadBytes(env, client_name, 1, &name)) return NULL;
  if (!ReadBytes(env, enrollment_token, 1, &token)) {
    FreeBytes(&name);
    return NULL;
  }
  jbyteArray result = NULL;
  if (memchr(name.data, 0, name.len) != NULL || memchr(token.data, 0, token.len) != NULL) {
    ThrowMessage(env, FEDMF_ERR_INVALID_ARGUMENT,
                 "client name or enrollment token contains a NUL character");
  } else {
    uint8_t* out = NULL;
    size_t len = 0;
    const fedmf_status s = fedmf_participant_register_request(
        Handle(handle), (const char*)name.data, (const char*)token.data, &out, &len);
    result = TakeBuffer(env, s, out, len);
  }
  FreeBytes(&name);
  FreeBytes(&token);
  return result;
}

JNIEXPORT jbyteArray JNICALL Java_org_fedmf_Native_openStream(JNIEnv* env, jclass cls, jlong handle,
                                                              jbyteArray response) {
  (void)cls;
  Bytes in;
  if (!ReadBytes(env, response, 0, &in)) return NULL;
  uint8_t* out = NULL;
  size_t len = 0;
  const fedmf_status s = fedmf_participant_open_stream(Handle(handle), in.data, in.len, &out, &len);
  FreeBytes(&in);
  return TakeBuffer(env, s, out, len);
}

/* The replies as a byte[][] (NULL with an exception pending on failure). */
static jobjectArray Replies(JNIEnv* env, const fedmf_messages* replies) {
  const size_t count = fedmf_messages_count(replies);
  if (count > INT32_MAX) {
    ThrowOutOfMemory(env, "fedmf-java: more replies than a Java array holds");
    return NULL;
  }
  jobjectArray out = (*env)->NewObjectArray(env, (jsize)count, g_byte_array_class, NULL);
  for (size_t i = 0; out != NULL && i < count; ++i) {
    const uint8_t* data = NULL;
    size_t len = 0;
    const fedmf_status s = fedmf_messages_get(replies, i, &data, &len);
    if (s != FEDMF_OK) {
      ThrowStatus(env, s);
      return NULL;
    }
    jbyteArray reply = NewBytes(env, data, len);
    if (reply == NULL) return NULL;
    (*env)->SetObjectArrayElement(env, out, (jsize)i, reply);
    (*env)->DeleteLocalRef(env, reply);
  }
  return out;
}

JNIEXPORT jobjectArray JNICALL Java_org_fedmf_Native_handle(JNIEnv* env, jclass cls, jlong handle,
                                                            jbyteArray message) {
  (void)cls;
  Bytes in;
  if (!ReadBytes(env, message, 0, &in)) return NULL;
  fedmf_messages* replies = NULL;
  const fedmf_status s = fedmf_participant_handle(Handle(handle), in.data, in.len, &replies);
  FreeBytes(&in);
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
    return NULL;
  }
  jobjectArray out = Replies(env, replies);
  fedmf_messages_free(replies);
  return out;
}

JNIEXPORT jlong JNICALL Java_org_fedmf_Native_roundsCompleted(JNIEnv* env, jclass cls,
                                                              jlong handle) {
  (void)env;
  (void)cls;
  return (jlong)fedmf_participant_rounds_completed(Handle(handle));
}

JNIEXPORT jboolean JNICALL Java_org_fedmf_Native_trainingDone(JNIEnv* env, jclass cls,
                                                              jlong handle) {
  (void)env;
  (void)cls;
  return fedmf_participant_training_done(Handle(handle)) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jlong JNICALL Java_org_fedmf_Native_takeCheckInMillis(JNIEnv* env, jclass cls,
                                                                jlong handle) {
  (void)env;
  (void)cls;
  return (jlong)fedmf_participant_take_check_in_ms(Handle(handle));
}

/* ---- Published models ---------------------------------------------------------------------- */

JNIEXPORT jlong JNICALL Java_org_fedmf_Native_latestModelVersion(JNIEnv* env, jclass cls,
                                                                 jlong handle) {
  (void)env;
  (void)cls;
  return (jlong)fedmf_participant_latest_model_version(Handle(handle));
}

JNIEXPORT jlong JNICALL Java_org_fedmf_Native_modelVersion(JNIEnv* env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jlong)fedmf_participant_model_version(Handle(handle));
}

JNIEXPORT jbyteArray JNICALL Java_org_fedmf_Native_downloadRequest(JNIEnv* env, jclass cls,
                                                                   jlong handle) {
  (void)cls;
  uint8_t* out = NULL;
  size_t len = 0;
  const fedmf_status s = fedmf_participant_download_request(Handle(handle), &out, &len);
  return TakeBuffer(env, s, out, len);
}

JNIEXPORT jboolean JNICALL Java_org_fedmf_Native_handleModelChunk(JNIEnv* env, jclass cls,
                                                                  jlong handle, jbyteArray chunk) {
  (void)cls;
  Bytes in;
  if (!ReadBytes(env, chunk, 0, &in)) return JNI_FALSE;
  int complete = 0;
  const fedmf_status s =
      fedmf_participant_handle_model_chunk(Handle(handle), in.data, in.len, &complete);
  FreeBytes(&in);
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
    return JNI_FALSE;
  }
  return complete ? JNI_TRUE : JNI_FALSE;
}

/* ---- Model queries ------------------------------------------------------------------------- */

JNIEXPORT jboolean JNICALL Java_org_fedmf_Native_hasModel(JNIEnv* env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return fedmf_participant_has_model(Handle(handle)) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jint JNICALL Java_org_fedmf_Native_modelNumItems(JNIEnv* env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jint)fedmf_participant_model_num_items(Handle(handle));
}

/* Fills items[] and scores[] (their common length is the capacity) and returns the count. */
JNIEXPORT jint JNICALL Java_org_fedmf_Native_recommend(JNIEnv* env, jclass cls, jlong handle,
                                                       jint n, jintArray items,
                                                       jdoubleArray scores) {
  (void)cls;
  const jsize items_len = (*env)->GetArrayLength(env, items);
  const jsize scores_len = (*env)->GetArrayLength(env, scores);
  const size_t capacity = (size_t)(items_len < scores_len ? items_len : scores_len);
  int32_t* item_out = capacity > 0 ? malloc(capacity * sizeof *item_out) : NULL;
  double* score_out = capacity > 0 ? malloc(capacity * sizeof *score_out) : NULL;
  if (capacity > 0 && (item_out == NULL || score_out == NULL)) {
    free(item_out);
    free(score_out);
    ThrowOutOfMemory(env, "fedmf-java: recommendation buffers");
    return 0;
  }
  size_t count = 0;
  const fedmf_status s =
      fedmf_participant_recommend(Handle(handle), n, item_out, score_out, capacity, &count);
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
    count = 0;
  } else if (count > 0) {
    (*env)->SetIntArrayRegion(env, items, 0, (jsize)count, (const jint*)item_out);
    (*env)->SetDoubleArrayRegion(env, scores, 0, (jsize)count, score_out);
  }
  free(item_out);
  free(score_out);
  return (jint)count;
}

JNIEXPORT jdouble JNICALL Java_org_fedmf_Native_predict(JNIEnv* env, jclass cls, jlong handle,
                                                        jint item) {
  (void)cls;
  double rating = 0;
  const fedmf_status s = fedmf_participant_predict(Handle(handle), item, &rating);
  if (s != FEDMF_OK) ThrowStatus(env, s);
  return rating;
}

JNIEXPORT jdoubleArray JNICALL Java_org_fedmf_Native_userFactor(JNIEnv* env, jclass cls,
                                                                jlong handle) {
  (void)cls;
  size_t len = 0;
  fedmf_status s = fedmf_participant_user_factor(Handle(handle), NULL, 0, &len);
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
    return NULL;
  }
  if (len > INT32_MAX) {
    ThrowOutOfMemory(env, "fedmf-java: a user factor longer than a Java array");
    return NULL;
  }
  double* values = len > 0 ? malloc(len * sizeof *values) : NULL;
  if (len > 0 && values == NULL) {
    ThrowOutOfMemory(env, "fedmf-java: the user factor");
    return NULL;
  }
  s = fedmf_participant_user_factor(Handle(handle), values, len, &len);
  jdoubleArray out = NULL;
  if (s != FEDMF_OK) {
    ThrowStatus(env, s);
  } else if ((out = (*env)->NewDoubleArray(env, (jsize)len)) != NULL && len > 0) {
    (*env)->SetDoubleArrayRegion(env, out, 0, (jsize)len, values);
  }
  free(values);
  return out;
}
