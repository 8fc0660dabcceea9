package io.javelin.engine;

import io.javelin.encoding.kernel.Kernels;
import io.javelin.objectstore.ObjectStores;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;

/** Facts about this build of the engine. */
public final class Javelin {

    private static final String VERSION = loadVersion();

    private Javelin() {
    }

    /** The engine's version, e.g. "0.1.0-SNAPSHOT". */
    public static String version() {
        return VERSION;
    }

    /** URI schemes the engine can open. */
    public static List<String> stores() {
        return ObjectStores.supportedSchemes();
    }

    /** Name of the decode-kernel implementation in use ("vector(512-bit)", "scalar", ...). */
    public static String simdProvider() {
        return Kernels.get().name();
    }

    private static String loadVersion() {
        try (InputStream in = Javelin.class.getResourceAsStream("javelin.properties")) {
            if (in == null) {
                return "unknown";
            }
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
