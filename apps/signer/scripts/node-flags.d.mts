export declare const presigningNodeFlags: string[];
