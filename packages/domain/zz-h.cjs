const c=require('crypto');const what=process.argv[2];const n=+process.argv[3];let t=Date.now();
for(let i=0;i<n;i++){
 const {privateKey,publicKey}=c.generateKeyPairSync('ed25519');
 if(what.includes('privder')) privateKey.export({format:'der',type:'pkcs8'});
 if(what.includes('pubjwk')) publicKey.export({format:'jwk'});
 if(what.includes('pubder')) publicKey.export({format:'der',type:'spki'});
 if(i%5000===0)process.stderr.write(`${what} ${i} ${Date.now()-t}\n`);}
process.stderr.write(`${what} done ${Date.now()-t}\n`);
