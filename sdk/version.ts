// The SDK's own version: plugins declare the range they support (`sdk: '^1'`) and the kernel refuses one this version does not satisfy.
/** 1.0: the SDK of Dockwright 0.1; 1.1 adds brands, typed revisions, typed dependencies, extension points, declared env and the test kit; 1.2 adds compareText; 1.3 adds a route's optionalScopes and parseCron (schedules are minute-grained); 1.4 adds the services a plugin declares and the extension points it offers; 1.5 adds pageOf and looksSecret */
export const sdkVersion = '1.5.0';
