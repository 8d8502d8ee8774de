export declare function signerBuildUpToDate(): boolean;
export declare function buildSigner(): Promise<boolean>;
export declare const signerStartCommand: { args: string[]; env: Record<string, string> };
export declare const presigningNodeFlags: string[];
