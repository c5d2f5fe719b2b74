/// Every audited callback and input this build knows, from the per-protocol tables.
public enum CallbackCatalog {
    public static let callbacks: [CallbackDescriptor] = SegmentedControlCallbacks.all
    public static let inputs: [CallbackDescriptor] = SegmentedControl.Inputs.all
}
