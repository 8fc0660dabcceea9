package io.javelin.objectstore.servers;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import java.util.zip.GZIPInputStream;

/**
 * A GCS JSON-API server for tests: the subset google-cloud-storage (HTTP transport) uses, in
 * memory, bound to 127.0.0.1. It mimics the behaviours the commit path depends on: atomic
 * {@code ifGenerationMatch} preconditions (412 {@code conditionNotMet}), generations as strings,
 * ranged media downloads (206), resumable uploads (308 + Range), gzip request bodies, paged
 * listings with prefixes, and rewrite (copy).
 *
 * <p>It can also inject faults at the wire, before or after applying a request (a lost response).
 */
public final class GcsTestServer implements AutoCloseable {

    private record Obj(byte[] data, long generation, long metageneration, Instant updated) {
    }

    private record Upload(String bucket, String name, Long ifGenerationMatch, ByteArrayOutputStream data) {
    }

    /** A fault armed for the next {@code remaining} matching requests. */
    private record Fault(AtomicInteger remaining, int status, String reason, boolean after, String method, String pathPart) {
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final Gson gson = new Gson();
    private final Map<String, ConcurrentSkipListMap<String, Obj>> buckets = new ConcurrentHashMap<>();
    private final Map<String, Upload> uploads = new ConcurrentHashMap<>();
    private final AtomicLong generations = new AtomicLong(1_700_000_000_000_000L);
    private final List<Fault> faults = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicLong requests = new AtomicLong();

    public GcsTestServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
        executor = Executors.newFixedThreadPool(16, r -> {
            Thread t = new Thread(r, "gcs-test-server");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public void createBucket(String name) {
        buckets.putIfAbsent(name, new ConcurrentSkipListMap<>());
    }

    public long requestCount() {
        return requests.get();
    }

    /**
     * Fails the next {@code n} requests whose method and path match with {@code status}/{@code reason};
     * with {@code after}, the request is applied first and only its response is replaced.
     */
    public void armFault(int n, int status, String reason, boolean after, String method, String pathPart) {
        faults.add(new Fault(new AtomicInteger(n), status, reason, after, method, pathPart));
    }

    public void clearFaults() {
        faults.clear();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }

    private Fault takeFault(String method, String path) {
        for (Fault f : faults) {
            if ((f.method == null || f.method.equals(method)) && (f.pathPart == null || path.contains(f.pathPart))) {
                if (f.remaining.getAndDecrement() > 0) {
                    return f;
                }
            }
        }
        return null;
    }

    private void handle(HttpExchange ex) throws IOException {
        requests.incrementAndGet();
        try (ex) {
            String method = ex.getRequestMethod();
            String rawPath = ex.getRequestURI().getRawPath();
            Fault fault = takeFault(method, decode(rawPath + "?" + ex.getRequestURI().getRawQuery()));
            if (fault != null && !fault.after) {
                drain(ex);
                error(ex, fault.status, fault.reason, "injected fault");
                return;
            }
            Reply reply = route(ex, method, rawPath, query(ex));
            if (fault != null) {
                error(ex, fault.status, fault.reason, "injected fault after the request was applied");
                return;
            }
            reply.send(ex);
        } catch (Exception e) {
            try {
                error(ex, 500, "backendError", String.valueOf(e));
            } catch (IOException ignored) {
                // client went away
            }
        }
    }

    /** A response to send (kept so a fault can replace it after the request was applied). */
    private interface Reply {
        void send(HttpExchange ex) throws IOException;
    }

    private Reply route(HttpExchange ex, String method, String path, Map<String, String> q) throws IOException {
        String[] p = path.split("/");
        // /storage/v1/b ; /storage/v1/b/{b} ; /storage/v1/b/{b}/o ; /storage/v1/b/{b}/o/{o}[/rewriteTo/b/{b2}/o/{o2}]
        // /upload/storage/v1/b/{b}/o ; /download/storage/v1/b/{b}/o/{o}
        if (path.startsWith("/upload/storage/v1/b/") && p.length >= 7) {
            String bucket = decode(p[5]);
            if (method.equals("POST") && "multipart".equals(q.get("uploadType"))) {
                return multipartUpload(ex, bucket, q);
            }
            if (method.equals("POST") && "resumable".equals(q.get("uploadType"))) {
                return startResumable(ex, bucket, q);
            }
            if (method.equals("PUT") && q.containsKey("upload_id")) {
                return resumeUpload(ex, q.get("upload_id"));
            }
        }
        if (path.startsWith("/download/storage/v1/b/") && p.length >= 8 && method.equals("GET")) {
            return media(ex, decode(p[5]), decode(join(p, 7)), q);
        }
        if (path.startsWith("/storage/v1/b")) {
            if (p.length == 4) {
                if (method.equals("POST")) {
                    JsonObject body = gson.fromJson(new String(body(ex), StandardCharsets.UTF_8), JsonObject.class);
                    String name = body.get("name").getAsString();
                    createBucket(name);
                    return json(200, bucketJson(name));
                }
                JsonObject list = new JsonObject();
                JsonArray items = new JsonArray();
                buckets.keySet().forEach(b -> items.add(bucketJson(b)));
                list.add("items", items);
                return json(200, list);
            }
            String bucket = decode(p[4]);
            if (!buckets.containsKey(bucket)) {
                drain(ex);
                return errorReply(404, "notFound", "bucket " + bucket + " not found");
            }
            if (p.length == 5) {
                return json(200, bucketJson(bucket));
            }
            if (p.length == 6 && method.equals("GET")) {
                return list(bucket, q);
            }
            int rewrite = indexOf(p, "rewriteTo");
            if (rewrite > 0 && method.equals("POST")) {
                drain(ex);
                return rewrite(bucket, decode(join(p, 6, rewrite)), decode(p[rewrite + 2]), decode(join(p, rewrite + 4)), q);
            }
            String name = decode(join(p, 6));
            return switch (method) {
                case "GET" -> "media".equals(q.get("alt")) ? media(ex, bucket, name, q) : metadata(bucket, name, q);
                case "DELETE" -> {
                    Obj removed = buckets.get(bucket).remove(name);
                    yield removed == null ? errorReply(404, "notFound", "no such object") : ex2 -> {
                        ex2.sendResponseHeaders(204, -1);
                    };
                }
                default -> errorReply(405, "methodNotAllowed", method);
            };
        }
        drain(ex);
        return errorReply(404, "notFound", "unknown path " + path);
    }

    private Reply metadata(String bucket, String name, Map<String, String> q) {
        Obj o = buckets.get(bucket).get(name);
        if (o == null) {
            return errorReply(404, "notFound", "No such object: " + bucket + "/" + name);
        }
        return json(200, objectJson(bucket, name, o));
    }

    private Reply media(HttpExchange ex, String bucket, String name, Map<String, String> q) {
        Obj o = buckets.get(bucket).get(name);
        if (o == null) {
            return errorReply(404, "notFound", "No such object: " + bucket + "/" + name);
        }
        String gen = q.get("generation");
        if (gen != null && Long.parseLong(gen) != o.generation) {
            return errorReply(404, "notFound", "No such object generation");
        }
        String ifGen = q.get("ifGenerationMatch");
        if (ifGen != null && Long.parseLong(ifGen) != o.generation) {
            return errorReply(412, "conditionNotMet", "Precondition Failed");
        }
        String range = ex.getRequestHeaders().getFirst("Range");
        long size = o.data.length;
        long start = 0;
        long end = size - 1;
        boolean partial = false;
        if (range != null && range.startsWith("bytes=")) {
            String r = range.substring(6);
            if (r.startsWith("-")) {
                long n = Long.parseLong(r.substring(1));
                start = Math.max(0, size - n);
            } else {
                String[] se = r.split("-", -1);
                start = Long.parseLong(se[0]);
                if (!se[1].isEmpty()) {
                    end = Math.min(end, Long.parseLong(se[1]));
                }
            }
            if (start >= size && size > 0) {
                return errorReply(416, "requestedRangeNotSatisfiable", "Requested range not satisfiable");
            }
            partial = true;
        }
        long s = start;
        long len = Math.max(0, end - start + 1);
        boolean isPartial = partial;
        return ex2 -> {
            var h = ex2.getResponseHeaders();
            h.add("Content-Type", "application/octet-stream");
            h.add("x-goog-generation", Long.toString(o.generation));
            h.add("x-goog-metageneration", Long.toString(o.metageneration));
            h.add("x-goog-stored-content-length", Long.toString(size));
            h.add("x-goog-stored-content-encoding", "identity");
            h.add("x-goog-hash", "crc32c=" + crc32c(o.data) + ",md5=" + md5(o.data));
            h.add("ETag", etag(o));
            if (isPartial) {
                h.add("Content-Range", "bytes " + s + "-" + (s + len - 1) + "/" + size);
            }
            ex2.sendResponseHeaders(isPartial ? 206 : 200, len == 0 ? -1 : len);
            if (len > 0) {
                ex2.getResponseBody().write(o.data, (int) s, (int) len);
            }
        };
    }

    private Reply multipartUpload(HttpExchange ex, String bucket, Map<String, String> q) throws IOException {
        String ct = ex.getRequestHeaders().getFirst("Content-Type");
        byte[] body = body(ex);
        String boundary = ct.substring(ct.indexOf("boundary=") + 9).replace("\"", "").trim();
        List<byte[]> parts = splitMultipart(body, boundary);
        if (parts.size() < 2) {
            return errorReply(400, "invalid", "expected metadata and media parts");
        }
        JsonObject meta = gson.fromJson(new String(parts.get(0), StandardCharsets.UTF_8), JsonObject.class);
        String name = meta.has("name") ? meta.get("name").getAsString() : q.get("name");
        return store(bucket, name, parts.get(1), generationParam(q));
    }

    private Reply startResumable(HttpExchange ex, String bucket, Map<String, String> q) throws IOException {
        byte[] body = body(ex);
        String name = q.get("name");
        if (name == null && body.length > 0) {
            JsonObject meta = gson.fromJson(new String(body, StandardCharsets.UTF_8), JsonObject.class);
            name = meta.get("name").getAsString();
        }
        String id = UUID.randomUUID().toString();
        uploads.put(id, new Upload(bucket, name, generationParam(q), new ByteArrayOutputStream()));
        String location = endpoint() + "/upload/storage/v1/b/" + bucket + "/o?uploadType=resumable&upload_id=" + id;
        return ex2 -> {
            ex2.getResponseHeaders().add("Location", location);
            ex2.getResponseHeaders().add("X-GUploader-UploadID", id);
            ex2.sendResponseHeaders(200, -1);
        };
    }

    private Reply resumeUpload(HttpExchange ex, String id) throws IOException {
        Upload up = uploads.get(id);
        byte[] body = body(ex);
        if (up == null) {
            return errorReply(404, "notFound", "no such upload");
        }
        String cr = ex.getRequestHeaders().getFirst("Content-Range");
        long total = -1;
        if (cr != null) {
            String t = cr.substring(cr.lastIndexOf('/') + 1).trim();
            if (!t.equals("*")) {
                total = Long.parseLong(t);
            }
        }
        synchronized (up) {
            if (cr != null && !cr.contains("*/")) {
                long start = Long.parseLong(cr.substring(cr.indexOf(' ') + 1, cr.indexOf('-')));
                if (start != up.data.size()) {
                    // A retried chunk: accept only the part we have not seen.
                    int skip = (int) (up.data.size() - start);
                    if (skip > 0 && skip <= body.length) {
                        up.data.write(body, skip, body.length - skip);
                    }
                } else {
                    up.data.write(body, 0, body.length);
                }
            }
            long have = up.data.size();
            if (total >= 0 && have >= total) {
                uploads.remove(id);
                return store(up.bucket, up.name, up.data.toByteArray(), up.ifGenerationMatch);
            }
            return ex2 -> {
                if (have > 0) {
                    ex2.getResponseHeaders().add("Range", "bytes=0-" + (have - 1));
                }
                ex2.sendResponseHeaders(308, -1);
            };
        }
    }

    /** Creates or replaces an object, atomically checking ifGenerationMatch (0 = must not exist). */
    private Reply store(String bucket, String name, byte[] data, Long ifGenerationMatch) {
        ConcurrentSkipListMap<String, Obj> objs = buckets.get(bucket);
        if (objs == null) {
            return errorReply(404, "notFound", "bucket " + bucket + " not found");
        }
        Obj o = new Obj(data, generations.incrementAndGet(), 1, Instant.now());
        if (ifGenerationMatch != null && ifGenerationMatch == 0) {
            if (objs.putIfAbsent(name, o) != null) {
                return errorReply(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.");
            }
        } else if (ifGenerationMatch != null) {
            Obj cur = objs.get(name);
            if (cur == null || cur.generation != ifGenerationMatch || !objs.replace(name, cur, o)) {
                return errorReply(412, "conditionNotMet", "At least one of the pre-conditions you specified did not hold.");
            }
        } else {
            objs.put(name, o);
        }
        return json(200, objectJson(bucket, name, o));
    }

    private Reply rewrite(String srcBucket, String srcName, String dstBucket, String dstName, Map<String, String> q) {
        Obj src = buckets.get(srcBucket).get(srcName);
        if (src == null) {
            return errorReply(404, "notFound", "No such object: " + srcBucket + "/" + srcName);
        }
        Reply stored = store(dstBucket, dstName, src.data, generationParam(q));
        Obj dst = buckets.get(dstBucket).get(dstName);
        JsonObject r = new JsonObject();
        r.addProperty("kind", "storage#rewriteResponse");
        r.addProperty("totalBytesRewritten", Long.toString(src.data.length));
        r.addProperty("objectSize", Long.toString(src.data.length));
        r.addProperty("done", true);
        r.add("resource", objectJson(dstBucket, dstName, dst));
        return dst == null ? stored : json(200, r);
    }

    private Reply list(String bucket, Map<String, String> q) {
        String prefix = q.getOrDefault("prefix", "");
        String delimiter = q.get("delimiter");
        int max = Integer.parseInt(q.getOrDefault("maxResults", "1000"));
        String token = q.get("pageToken");
        NavigableMap<String, Obj> tail = token == null ? buckets.get(bucket).tailMap(prefix, true)
                : buckets.get(bucket).tailMap(new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8), false);
        JsonArray items = new JsonArray();
        List<String> prefixes = new ArrayList<>();
        String last = null;
        int count = 0;
        boolean more = false;
        for (var e : tail.entrySet()) {
            String k = e.getKey();
            if (!k.startsWith(prefix)) {
                break;
            }
            String emitted = k;
            if (delimiter != null) {
                int d = k.indexOf(delimiter, prefix.length());
                if (d >= 0) {
                    emitted = k.substring(0, d + delimiter.length());
                }
            }
            if (emitted.equals(last)) {
                continue; // another key under the same rolled-up prefix
            }
            if (count == max) {
                more = true;
                break;
            }
            count++;
            last = emitted;
            if (!emitted.equals(k)) {
                prefixes.add(emitted);
            } else {
                items.add(objectJson(bucket, k, e.getValue()));
            }
        }
        JsonObject r = new JsonObject();
        r.addProperty("kind", "storage#objects");
        if (!items.isEmpty()) {
            r.add("items", items);
        }
        if (!prefixes.isEmpty()) {
            JsonArray pa = new JsonArray();
            prefixes.forEach(pa::add);
            r.add("prefixes", pa);
        }
        if (more) {
            // Resume after the last key returned; for a rolled-up prefix, after everything under it.
            String resume = last.endsWith(delimiter == null ? "\0" : delimiter) ? last + "\uffff" : last;
            r.addProperty("nextPageToken", Base64.getUrlEncoder().encodeToString(resume.getBytes(StandardCharsets.UTF_8)));
        }
        return json(200, r);
    }

    private JsonObject objectJson(String bucket, String name, Obj o) {
        JsonObject j = new JsonObject();
        j.addProperty("kind", "storage#object");
        j.addProperty("id", bucket + "/" + name + "/" + o.generation);
        j.addProperty("selfLink", endpoint() + "/storage/v1/b/" + bucket + "/o/" + encode(name));
        j.addProperty("mediaLink", endpoint() + "/download/storage/v1/b/" + bucket + "/o/" + encode(name)
                + "?generation=" + o.generation + "&alt=media");
        j.addProperty("name", name);
        j.addProperty("bucket", bucket);
        // Generations and sizes are strings in the JSON API.
        j.addProperty("generation", Long.toString(o.generation));
        j.addProperty("metageneration", Long.toString(o.metageneration));
        j.addProperty("contentType", "application/octet-stream");
        j.addProperty("storageClass", "STANDARD");
        j.addProperty("size", Long.toString(o.data.length));
        j.addProperty("md5Hash", md5(o.data));
        j.addProperty("crc32c", crc32c(o.data));
        j.addProperty("etag", etag(o));
        j.addProperty("timeCreated", o.updated.toString());
        j.addProperty("updated", o.updated.toString());
        return j;
    }

    private static JsonObject bucketJson(String name) {
        JsonObject j = new JsonObject();
        j.addProperty("kind", "storage#bucket");
        j.addProperty("id", name);
        j.addProperty("name", name);
        j.addProperty("location", "US");
        j.addProperty("storageClass", "STANDARD");
        return j;
    }

    private static String etag(Obj o) {
        return "\"" + Long.toHexString(o.generation) + "\"";
    }

    private Reply json(int status, JsonObject body) {
        byte[] b = gson.toJson(body).getBytes(StandardCharsets.UTF_8);
        return ex -> {
            ex.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
            ex.sendResponseHeaders(status, b.length);
            ex.getResponseBody().write(b);
        };
    }

    private Reply errorReply(int status, String reason, String message) {
        return ex -> error(ex, status, reason, message);
    }

    private void error(HttpExchange ex, int status, String reason, String message) throws IOException {
        JsonObject e = new JsonObject();
        JsonObject err = new JsonObject();
        err.addProperty("code", status);
        err.addProperty("message", message);
        JsonArray errors = new JsonArray();
        JsonObject one = new JsonObject();
        one.addProperty("reason", reason);
        one.addProperty("message", message);
        one.addProperty("domain", "global");
        errors.add(one);
        err.add("errors", errors);
        e.add("error", err);
        byte[] b = gson.toJson(e).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
        ex.sendResponseHeaders(status, b.length);
        ex.getResponseBody().write(b);
    }

    private static Long generationParam(Map<String, String> q) {
        String g = q.get("ifGenerationMatch");
        return g == null ? null : Long.parseLong(g);
    }

    /** The request body, gunzipped when the client compressed it. */
    private static byte[] body(HttpExchange ex) throws IOException {
        byte[] raw = ex.getRequestBody().readAllBytes();
        if ("gzip".equalsIgnoreCase(ex.getRequestHeaders().getFirst("Content-Encoding"))) {
            try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(raw))) {
                return in.readAllBytes();
            }
        }
        return raw;
    }

    private static void drain(HttpExchange ex) throws IOException {
        ex.getRequestBody().readAllBytes();
    }

    private static List<byte[]> splitMultipart(byte[] body, String boundary) {
        byte[] delim = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        List<byte[]> parts = new ArrayList<>();
        int pos = indexOf(body, delim, 0);
        while (pos >= 0) {
            int start = pos + delim.length;
            if (start + 1 < body.length && body[start] == '-' && body[start + 1] == '-') {
                break;
            }
            int next = indexOf(body, delim, start);
            if (next < 0) {
                break;
            }
            int headersEnd = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), start);
            int contentStart = headersEnd + 4;
            int contentEnd = next - 2; // strip CRLF before the delimiter
            byte[] content = new byte[Math.max(0, contentEnd - contentStart)];
            System.arraycopy(body, contentStart, content, 0, content.length);
            parts.add(content);
            pos = next;
        }
        return parts;
    }

    private static int indexOf(byte[] a, byte[] b, int from) {
        outer:
        for (int i = from; i <= a.length - b.length; i++) {
            for (int j = 0; j < b.length; j++) {
                if (a[i + j] != b[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static int indexOf(String[] a, String s) {
        for (int i = 0; i < a.length; i++) {
            if (a[i].equals(s)) {
                return i;
            }
        }
        return -1;
    }

    private static String join(String[] p, int from) {
        return join(p, from, p.length);
    }

    private static String join(String[] p, int from, int to) {
        return String.join("/", java.util.Arrays.copyOfRange(p, from, to));
    }

    private static Map<String, String> query(HttpExchange ex) {
        Map<String, String> q = new HashMap<>();
        String raw = ex.getRequestURI().getRawQuery();
        if (raw == null) {
            return q;
        }
        for (String kv : raw.split("&")) {
            int eq = kv.indexOf('=');
            if (eq < 0) {
                q.put(decode(kv), "");
            } else {
                q.put(decode(kv.substring(0, eq)), decode(kv.substring(eq + 1)));
            }
        }
        return q;
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String md5(byte[] data) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(data));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String crc32c(byte[] data) {
        CRC32C c = new CRC32C();
        c.update(data);
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) c.getValue()).array());
    }
}
