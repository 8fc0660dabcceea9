package io.javelin.objectstore.servers;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/** The in-process {@link GcsTestServer}, one per test JVM. */
public final class GcsServer {

    private static GcsTestServer instance;

    private GcsServer() {
    }

    public static synchronized GcsTestServer get() {
        if (instance == null) {
            try {
                instance = new GcsTestServer();
            } catch (IOException e) {
                throw new IllegalStateException("cannot start the GCS test server", e);
            }
            GcsTestServer s = instance;
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "stop-gcs-test-server"));
        }
        return instance;
    }

    public static Map<String, String> options(GcsTestServer s) {
        Map<String, String> o = new HashMap<>();
        o.put("gcs_base_url", s.endpoint());
        o.put("allow_http", "true");
        return o;
    }
}
