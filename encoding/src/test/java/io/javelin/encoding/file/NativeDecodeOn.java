package io.javelin.encoding.file;

import io.javelin.encoding.v21.StructuralFieldReader;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/** Forces native page decode ({@link StructuralFieldReader#NATIVE}, on by default) on for each test and restores it after. */
final class NativeDecodeOn implements BeforeEachCallback, AfterEachCallback {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(NativeDecodeOn.class);

    @Override
    public void beforeEach(ExtensionContext context) {
        context.getStore(NS).put("was", StructuralFieldReader.NATIVE);
        StructuralFieldReader.NATIVE = true;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        StructuralFieldReader.NATIVE = context.getStore(NS).get("was", Boolean.class);
    }
}
